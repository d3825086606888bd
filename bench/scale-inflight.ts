// Scale figure 4: in-flight limits. A server started with small --max-requests-inflight /
// --max-mutating-requests-inflight and some pods gets a burst of concurrent full lists and creates; the figure
// is how many were refused with 429 (each must carry Retry-After), how many succeeded, and the RSS meanwhile.
import { execFileSync } from 'node:child_process';
import { Pool } from 'undici';
import { bonsaiBin } from './proc.js';
import { createPods, scalePod } from './scale-envelope.js';
import { jsonHeaders, startProbed } from './scale-proc.js';

export interface Inflight {
  supported: boolean;
  limits: { readOnly: number; mutating: number };
  pods: number;
  lists: number;
  creates: number;
  ok: number;
  tooMany: number;
  /** 429s without a Retry-After header (should be 0). */
  noRetryAfter: number;
  other: string;
  rssBeforeMB: number;
  rssPeakMB: number;
}

/** Whether `bonsai serve` knows the in-flight flags (another branch adds them). */
export function inflightFlagsSupported(): boolean {
  try {
    const help = execFileSync(process.execPath, [bonsaiBin, 'serve', '--help'], { encoding: 'utf8', timeout: 30_000 });
    return help.includes('--max-requests-inflight') && help.includes('--max-mutating-requests-inflight');
  } catch {
    return false;
  }
}

export async function inflightFigure(pods: number, burstLists: number, burstCreates: number, log: (m: string) => void): Promise<Inflight> {
  const limits = { readOnly: 4, mutating: 2 };
  const out: Inflight = { supported: inflightFlagsSupported(), limits, pods, lists: burstLists, creates: burstCreates, ok: 0, tooMany: 0, noRetryAfter: 0, other: '', rssBeforeMB: NaN, rssPeakMB: NaN };
  if (!out.supported) {
    log('   skipped: this build of `bonsai serve` has no --max-requests-inflight / --max-mutating-requests-inflight');
    return out;
  }
  // The max-in-flight filter is what this figure measures (APF, the default, queues instead: bench/flowcontrol.ts).
  const s = await startProbed(':memory:', ['--nodes', '0', '--max-requests-inflight', String(limits.readOnly), '--max-mutating-requests-inflight', String(limits.mutating), '--enable-priority-and-fairness=false'], 2);
  const burst = new Pool(s.url, { connections: burstLists + burstCreates, pipelining: 1 });
  try {
    await createPods(s.pool, 'inflight', pods, 2); // two clients: within the mutating limit, retried on 429 anyway
    out.rssBeforeMB = s.rssMB();
    const peak = s.rssPeakDuring();
    const other = new Map<string, number>();
    const one = async (req: () => Promise<import('undici').Dispatcher.ResponseData>) => {
      try {
        const res = await req();
        await res.body.dump();
        if (res.statusCode === 429) {
          out.tooMany++;
          if (res.headers['retry-after'] === undefined) out.noRetryAfter++;
        } else if (res.statusCode === 200 || res.statusCode === 201) out.ok++;
        else other.set(String(res.statusCode), (other.get(String(res.statusCode)) ?? 0) + 1);
      } catch (e) {
        const k = `error ${String(e).slice(0, 40)}`;
        other.set(k, (other.get(k) ?? 0) + 1);
      }
    };
    await Promise.all([
      ...Array.from({ length: burstLists }, () => one(() => burst.request({ method: 'GET', path: '/api/v1/pods', headers: { accept: 'application/json' } }))),
      ...Array.from({ length: burstCreates }, (_, i) => one(() => burst.request({ method: 'POST', path: '/api/v1/namespaces/default/pods', headers: jsonHeaders, body: scalePod(`burst-${i}`) }))),
    ]);
    out.rssPeakMB = peak();
    out.other = [...other].map(([k, n]) => `${n}x ${k}`).join(', ');
    log(`   burst of ${burstLists} full lists + ${burstCreates} creates (limits ${limits.readOnly}/${limits.mutating}): ${out.ok} ok, ${out.tooMany} x 429 (${out.noRetryAfter} without Retry-After)${out.other ? `, ${out.other}` : ''}; RSS ${out.rssBeforeMB.toFixed(0)} -> peak ${out.rssPeakMB.toFixed(0)} MB`);
    return out;
  } finally {
    await burst.close().catch(() => {});
    await s.stop();
  }
}
