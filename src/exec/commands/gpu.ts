// nvidia-smi in a container: the GPUs (and MIG devices) the simulated DRA driver handed to it, then those it holds
// through the node's nvidia.com/gpu capacity, numbered from 0 as the container sees them, in nvidia-smi's `-L` and
// summary formats (a GPU whose UUID is unknown, its node publishing no devices, is listed without one). A container
// without devices gets the real tool's "No devices were found" (exit 6).
import type { CommandFn } from '../shell/interp.js';
import type { ContainerInfo } from '../container-info.js';
import { allocatedDevices, type AllocatedDevice } from '../../kubelet/dra/claim-devices.js';
import { driverVersions } from '../../kubelet/dra/gpu-models.js';
import { gpuDriver } from '../../kubelet/dra/gpu-slices.js';

const pad = (s: string, n: number) => (s.length >= n ? s.slice(0, n) : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
const mib = (q: string | undefined) => (q && /^\d+Gi$/.test(q) ? Number.parseInt(q, 10) * 1024 : 0);

function listLines(devices: AllocatedDevice[]): string[] {
  const lines: string[] = [];
  devices.forEach((d, i) => {
    const name = String(d.attributes.productName ?? 'NVIDIA GPU');
    if (d.attributes.type === 'mig') {
      lines.push(`GPU ${i}: ${name} (UUID: ${String(d.attributes.parentUUID ?? '')})`);
      lines.push(`  MIG ${pad(String(d.attributes.profile ?? ''), 11)} Device  0: (UUID: ${String(d.attributes.uuid ?? '')})`);
    } else lines.push(`GPU ${i}: ${name}${d.attributes.uuid === undefined ? '' : ` (UUID: ${String(d.attributes.uuid)})`}`);
  });
  return lines;
}

function summary(devices: AllocatedDevice[]): string[] {
  const rule = '+-----------------------------------------+------------------------+----------------------+';
  const out = [
    '+-----------------------------------------------------------------------------------------+',
    `| NVIDIA-SMI ${pad(driverVersions.driverVersion, 22)} Driver Version: ${pad(driverVersions.driverVersion, 14)} CUDA Version: ${pad(driverVersions.cudaDriverVersion.replace(/\.0$/, ''), 7)}|`,
    rule,
    '| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |',
    '| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |',
    '|=========================================+========================+======================|',
  ];
  devices.forEach((d, i) => {
    const name = String(d.attributes.productName ?? 'NVIDIA GPU');
    const bus = String(d.attributes.pcieBusID ?? '00000000:00:00.0').replace(/^0000:/, '00000000:');
    out.push(`| ${lpad(String(i), 3)}  ${pad(name, 26)}     On  | ${lpad(bus, 18)} Off |                    0 |`);
    out.push(`| N/A   34C    P0             69W /  700W | ${lpad(`0MiB / ${mib(d.capacity.memory)}MiB`, 22)} |      0%      Default |`);
    out.push(rule);
  });
  out.push('', '+-----------------------------------------------------------------------------------------+');
  out.push('| Processes:                                                                              |');
  out.push('|  No running processes found                                                             |');
  out.push('+-----------------------------------------------------------------------------------------+');
  return out;
}

export function gpuCommands(info: ContainerInfo): Map<string, CommandFn> {
  const m = new Map<string, CommandFn>();
  m.set('nvidia-smi', async ({ argv, stdout, stderr }) => {
    const devices = allocatedDevices(info.client, info.pod, info.container).filter((d) => d.driver === gpuDriver);
    if (!devices.length) {
      stderr.write('No devices were found\n');
      return 6;
    }
    const lines = argv.includes('-L') || argv.includes('--list-gpus') ? listLines(devices) : summary(devices);
    stdout.write(`${lines.join('\n')}\n`);
    return 0;
  });
  return m;
}
