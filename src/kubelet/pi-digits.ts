// Digits of pi, computed (Machin's formula in BigInt fixed point), for the documentation's `pi` Job:
// `perl -Mbignum=bpi -wle 'print bpi(2000)'` prints pi to 2000 significant digits.

/** Upper bound on the digits computed: bpi(N) with a larger N is cut to this many. */
export const maxPiDigits = 10_000;

/** arctan(1/x) scaled by `one`. */
function arctanInverse(x: bigint, one: bigint): bigint {
  const x2 = x * x;
  let term = one / x;
  let sum = term;
  let sign = -1n;
  for (let n = 3n; term !== 0n; n += 2n) {
    term /= x2;
    sum += (sign * term) / n;
    sign = -sign;
  }
  return sum;
}

/** Pi to `digits` significant digits, rounded as Math::BigFloat rounds (half to even is irrelevant here: half up). */
export function piDigits(digits: number): string {
  const n = Math.max(1, Math.min(maxPiDigits, Math.floor(digits)));
  const guard = 10;
  const one = 10n ** BigInt(n - 1 + guard);
  const pi = 4n * (4n * arctanInverse(5n, one) - arctanInverse(239n, one));
  const scaled = (pi + 5n * 10n ** BigInt(guard - 1)) / 10n ** BigInt(guard);
  const s = scaled.toString();
  return n === 1 ? s : `${s[0]}.${s.slice(1)}`;
}

/** The digit count of a `perl -Mbignum=bpi … 'print bpi(N)'` command, or undefined when it is not one. */
export function perlBpiDigits(argv: string[]): number | undefined {
  if (argv.length < 2 || !/(^|\/)perl[\d.]*$/.test(argv[0])) return undefined;
  if (!argv.some((a) => /^-M(bignum|bigrat|bigfloat)=.*\bbpi\b/.test(a) || a === '-Mbignum=bpi')) return undefined;
  const code = argv.slice(1).join(' ');
  const m = /print\s*\(?\s*bpi\s*\(\s*(\d{1,6})\s*\)/.exec(code);
  return m ? Number(m[1]) : undefined;
}
