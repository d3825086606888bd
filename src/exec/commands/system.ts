// What a container sees of its system: df and mount (the container's mounts as containerd sets them up: the
// overlay root, /dev, the node's disk for /etc/hosts and friends and for emptyDirs, tmpfs for ConfigMap, Secret,
// projected and token volumes), top (one frame: the container's processes), and `time CMD`.
import type { Node } from '../../generated/k8s/core/v1.js';
import type { CmdContext, CommandFn } from '../shell/interp.js';
import type { ContainerInfo } from '../container-info.js';
import { quantityValue } from '../../machinery/resources.js';

interface Mount {
  source: string;
  target: string;
  type: string;
  options: string;
  /** Size and use in KiB. */
  sizeK: number;
  usedK: number;
}

const diskK = 61_202_244;
const diskUsedK = 14_380_212;
const shmK = 65_536;

/** The node's memory in KiB (8 GiB when it says nothing). */
function nodeMemoryK(info: ContainerInfo): number {
  const node = info.client.get<Node>('v1/nodes', '', info.pod.spec?.nodeName ?? '');
  const mem = (node?.status?.allocatable as Record<string, unknown> | undefined)?.memory;
  const bytes = mem === undefined ? 8 * 2 ** 30 : quantityValue(mem);
  return Math.max(1, Math.round(bytes / 1024));
}

export function mounts(info: ContainerInfo): Mount[] {
  const disk = (target: string, ro = false): Mount => ({ source: '/dev/sda1', target, type: 'ext4', options: `${ro ? 'ro' : 'rw'},relatime`, sizeK: diskK, usedK: diskUsedK });
  const tmpfs = (target: string, sizeK: number, ro: boolean): Mount => ({ source: 'tmpfs', target, type: 'tmpfs', options: `${ro ? 'ro' : 'rw'},relatime,size=${sizeK}k`, sizeK, usedK: 12 });
  const out: Mount[] = [
    { source: 'overlay', target: '/', type: 'overlay', options: 'rw,relatime,lowerdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/1/fs,upperdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/2/fs,workdir=/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/2/work', sizeK: diskK, usedK: diskUsedK },
    { source: 'proc', target: '/proc', type: 'proc', options: 'rw,nosuid,nodev,noexec,relatime', sizeK: 0, usedK: 0 },
    { source: 'tmpfs', target: '/dev', type: 'tmpfs', options: 'rw,nosuid,size=65536k,mode=755', sizeK: shmK, usedK: 0 },
    { source: 'sysfs', target: '/sys', type: 'sysfs', options: 'ro,nosuid,nodev,noexec,relatime', sizeK: 0, usedK: 0 },
    { source: 'cgroup', target: '/sys/fs/cgroup', type: 'cgroup2', options: 'ro,nosuid,nodev,noexec,relatime', sizeK: 0, usedK: 0 },
    disk('/etc/hosts'), disk('/dev/termination-log'), disk('/etc/hostname'), disk('/etc/resolv.conf'),
    { source: 'shm', target: '/dev/shm', type: 'tmpfs', options: 'rw,nosuid,nodev,noexec,relatime,size=65536k', sizeK: shmK, usedK: 0 },
  ];
  const volumes = new Map((info.pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const memK = nodeMemoryK(info);
  for (const m of info.container.volumeMounts ?? []) {
    const v = volumes.get(m.name);
    if (!v || !m.mountPath?.startsWith('/')) continue;
    const ro = m.readOnly === true;
    if (v.configMap || v.secret || v.projected || v.downwardAPI) out.push(tmpfs(m.mountPath, memK, ro));
    else if (v.emptyDir?.medium === 'Memory') out.push(tmpfs(m.mountPath, memK, ro));
    else out.push(disk(m.mountPath, ro));
  }
  return out;
}

function human(k: number): string {
  const units = ['K', 'M', 'G', 'T'];
  let v = k;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v}${units[i]}` : `${v < 10 ? v.toFixed(1) : Math.round(v)}${units[i]}`;
}

const df = (info: ContainerInfo): CommandFn => async ({ argv, stdout }) => {
  const h = argv.slice(1).some((a) => /^-[a-zA-Z]*h/.test(a));
  const rows = mounts(info).filter((m) => m.sizeK > 0 && m.target !== '/dev/termination-log' && m.target !== '/etc/hostname' && m.target !== '/etc/resolv.conf');
  const cell = (n: number) => (h ? human(n) : String(n));
  const pct = (m: Mount) => `${m.sizeK ? Math.ceil((m.usedK * 100) / m.sizeK) : 0}%`;
  const table = [[h ? 'Size' : '1K-blocks', 'Used', h && !info.busybox ? 'Avail' : 'Available', 'Use%'], ...rows.map((m) => [cell(m.sizeK), cell(m.usedK), cell(m.sizeK - m.usedK), pct(m)])];
  const names = ['Filesystem', ...rows.map((m) => m.source)];
  const w = [Math.max(...names.map((n) => n.length)) + (info.busybox ? 6 : 1), ...[0, 1, 2, 3].map((i) => Math.max(...table.map((r) => r[i].length)))];
  const lines = table.map((r, i) => `${names[i].padEnd(w[0])}${r.map((x, j) => x.padStart(w[j + 1] + (j === 0 ? 0 : 1))).join('')} ${i === 0 ? 'Mounted on' : rows[i - 1].target}`);
  stdout.write(`${lines.join('\n')}\n`);
  return 0;
};

const mount = (info: ContainerInfo): CommandFn => async ({ stdout }) => {
  stdout.write(mounts(info).map((m) => `${m.source} on ${m.target} type ${m.type} (${m.options})\n`).join(''));
  return 0;
};

/** One frame of top: batch output as `top -b -n 1` prints it (busybox's layout, or procps' on other images). */
const top = (info: ContainerInfo): CommandFn => async ({ argv, stdout }) => {
  const memK = nodeMemoryK(info);
  const usedK = Math.round(memK * 0.23);
  const self = argv.join(' ');
  const procs: Array<[number, string, string]> = [[1, info.mainProcess, 'S'], [info.tty ? 13 : 7, self, 'R']];
  const now = new Date(info.nowMs());
  if (info.busybox) {
    stdout.write(`Mem: ${usedK}K used, ${memK - usedK}K free, 3300K shrd, 118532K buff, 1082180K cached\nCPU:   0% usr   0% sys   0% nic 100% idle   0% io   0% irq   0% sirq\nLoad average: 0.00 0.00 0.00 1/239 ${procs[1][0]}\n`);
    stdout.write(`  PID  PPID USER     STAT   VSZ %VSZ CPU %CPU COMMAND\n${procs.map(([pid, cmd, st]) => `${String(pid).padStart(5)}     0 root     ${st}     4388   0%   0   0% ${cmd}\n`).join('')}`);
    return 0;
  }
  const mib = (k: number) => (k / 1024).toFixed(1).padStart(8);
  const hms = now.toISOString().slice(11, 19);
  stdout.write(`top - ${hms} up 1 min,  0 users,  load average: 0.00, 0.00, 0.00\nTasks:   ${procs.length} total,   1 running,   ${procs.length - 1} sleeping,   0 stopped,   0 zombie\n`);
  stdout.write(`%Cpu(s):  0.0 us,  0.0 sy,  0.0 ni,100.0 id,  0.0 wa,  0.0 hi,  0.0 si,  0.0 st\nMiB Mem : ${mib(memK)} total, ${mib(memK - usedK)} free, ${mib(usedK)} used, ${mib(memK * 0.14)} buff/cache\nMiB Swap:      0.0 total,      0.0 free,      0.0 used. ${mib(memK - usedK)} avail Mem\n\n`);
  stdout.write(`    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n${procs.map(([pid, cmd, st]) => `${String(pid).padStart(7)} root      20   0   11420   7424   6400 ${st}   0.0   0.1   0:00.01 ${cmd.split(' ')[0].replace(/:$/, '')}\n`).join('')}`);
  return 0;
};

/** `time CMD`: runs CMD, then prints how long it took on the cluster clock (busybox's format, or bash's). */
const time = (info: ContainerInfo): CommandFn => async (c: CmdContext) => {
  const start = info.nowMs();
  let code = 0;
  if (c.argv.length > 1) {
    const name = c.argv[1];
    const fn = c.shell.host.commands.get(name.slice(name.lastIndexOf('/') + 1));
    if (!fn) {
      c.stderr.write(`time: can't execute '${name}': No such file or directory\n`);
      code = 127;
    } else code = await fn({ ...c, argv: c.argv.slice(1) });
  }
  const s = (info.nowMs() - start) / 1000;
  const m = Math.floor(s / 60);
  const rest = s - m * 60;
  if (info.busybox) c.stderr.write(`real\t${m}m ${rest.toFixed(2)}s\nuser\t0m 0.00s\nsys\t0m 0.00s\n`);
  else c.stderr.write(`\nreal\t${m}m${rest.toFixed(3)}s\nuser\t0m0.000s\nsys\t0m0.000s\n`);
  return code;
};

export function systemCommands(info: ContainerInfo): Map<string, CommandFn> {
  return new Map<string, CommandFn>([['df', df(info)], ['mount', mount(info)], ['top', top(info)], ['time', time(info)]]);
}
