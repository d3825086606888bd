// Time as the container command interpreter reads and prints it: `sleep`'s argument and `date`'s output.

const sleepUnits = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };

/** Milliseconds of `sleep`: plain or with an s/m/h/d suffix; "infinity" is undefined. */
export function sleepMs(arg: string | undefined): number | undefined {
  if (arg === undefined || arg === 'infinity' || arg === 'inf') return undefined;
  const m = arg.match(/^(\d+(?:\.\d+)?)([smhd]?)$/);
  if (!m) return 0;
  const mult = sleepUnits[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Math.round(Number(m[1]) * mult * 1000);
}

/** `date`'s default output, in UTC. */
export function dateText(d: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}
