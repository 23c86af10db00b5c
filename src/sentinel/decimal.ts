// The `decimal` import: exact decimal arithmetic (coefficient × 10^exponent with a BigInt
// coefficient), plus the infinities and NaN the import's page documents. Results are rounded
// (half to even) to 100 significant digits, the precision the page gives; so are division and
// the functions that are not exact (exp, logarithms, square roots, fractional powers).
import { fn } from './hostfn.ts';
import { RecordObject, SFloat, SObject, typeOf, type CallContext, type Value } from './values.ts';

const PRECISION = 100;
/** Exponents and coefficient lengths past this are an error: BigInt powers of 10 must stay small. */
const MAX_DIGITS = 6144;
/** Extra digits the series of exp and ln carry, so that their rounded result is right. */
const GUARD = 12;

type Kind = 'finite' | 'inf' | 'nan';

function bounded(d: Decimal, ctx: CallContext): Decimal {
  if (d.kind === 'finite' && (Math.abs(d.exp) > MAX_DIGITS || digitCount(d.coef) > MAX_DIGITS)) return ctx.fail('decimal: value out of range');
  return d;
}

function digitCount(c: bigint): number {
  return (c < 0n ? -c : c).toString().length;
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

export class Decimal extends SObject {
  readonly typeName = 'decimal';
  /** For an infinity, its sign (1n or -1n); 0n for NaN. */
  readonly coef: bigint;
  readonly exp: number;
  readonly kind: Kind;
  constructor(coef: bigint, exp: number, kind: Kind = 'finite') {
    super();
    this.coef = coef;
    this.exp = exp;
    this.kind = kind;
  }

  static infinity(sign: number): Decimal {
    return new Decimal(sign < 0 ? -1n : 1n, 0, 'inf');
  }
  static nan(): Decimal {
    return new Decimal(0n, 0, 'nan');
  }

  static parse(text: string): Decimal | null {
    const special = /^\s*([+-]?)(inf|infinity|nan)\s*$/i.exec(text);
    if (special) return special[2]!.toLowerCase() === 'nan' ? Decimal.nan() : Decimal.infinity(special[1] === '-' ? -1 : 1);
    const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(text);
    if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
    const digits = (m[2] ?? '') + (m[3] ?? '');
    const coef = BigInt(digits || '0') * (m[1] === '-' ? -1n : 1n);
    return new Decimal(coef, -(m[3] ?? '').length + Number(m[4] ?? 0));
  }

  static from(v: Value, ctx: CallContext): Decimal {
    if (v instanceof Decimal) return v;
    if (typeof v === 'number') return new Decimal(BigInt(v), 0);
    if (v instanceof SFloat) {
      if (Number.isNaN(v.v)) return Decimal.nan();
      if (!Number.isFinite(v.v)) return Decimal.infinity(v.v);
      // A float's shortest digits, trailing zeros in the exponent, as Go's decimal library reads
      // one (from `%E`): 2.2 is 22E-1, 100.0 is 1E+2.
      const d = Decimal.parse(String(v.v));
      if (d) return d.strip(Infinity);
    }
    if (typeof v === 'string') {
      if (v.length > MAX_DIGITS) return ctx.fail('decimal: value out of range');
      const m = /[eE]([+-]?\d+)\s*$/.exec(v);
      if (m && Math.abs(Number(m[1])) > MAX_DIGITS) return ctx.fail('decimal: value out of range');
      const d = Decimal.parse(v);
      if (d) return d;
      return ctx.fail(`decimal: cannot read a decimal from ${JSON.stringify(v)}`);
    }
    return ctx.fail(`decimal: cannot make a decimal from ${typeOf(v)}`);
  }

  private static align(a: Decimal, b: Decimal): [bigint, bigint, number] {
    const exp = Math.min(a.exp, b.exp);
    return [a.coef * pow10(a.exp - exp), b.coef * pow10(b.exp - exp), exp];
  }

  get isZero(): boolean {
    return this.kind === 'finite' && this.coef === 0n;
  }
  /** -1, 0 or 1 (0 for NaN, which has no sign). */
  get signum(): number {
    return this.coef > 0n ? 1 : this.coef < 0n ? -1 : 0;
  }

  /** The order of two decimals, or undefined when either is NaN (NaN equals nothing, not even NaN). */
  cmp(o: Decimal): number | undefined {
    if (this.kind === 'nan' || o.kind === 'nan') return undefined;
    if (this.kind === 'inf' || o.kind === 'inf') {
      const a = this.kind === 'inf' ? this.signum * 2 : 0;
      const b = o.kind === 'inf' ? o.signum * 2 : 0;
      if (a !== b) return a < b ? -1 : 1;
      if (a !== 0) return 0;
    }
    const [x, y] = Decimal.align(this, o);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  add(o: Decimal): Decimal {
    if (this.kind === 'nan' || o.kind === 'nan') return Decimal.nan();
    if (this.kind === 'inf' || o.kind === 'inf') {
      if (this.kind === 'inf' && o.kind === 'inf' && this.signum !== o.signum) return Decimal.nan();
      return this.kind === 'inf' ? this : o;
    }
    const [x, y, e] = Decimal.align(this, o);
    return new Decimal(x + y, e).round();
  }
  sub(o: Decimal): Decimal {
    return this.add(o.neg());
  }
  mul(o: Decimal): Decimal {
    if (this.kind === 'nan' || o.kind === 'nan') return Decimal.nan();
    if (this.kind === 'inf' || o.kind === 'inf') {
      if (this.isZero || o.isZero) return Decimal.nan();
      return Decimal.infinity(this.signum * o.signum);
    }
    return new Decimal(this.coef * o.coef, this.exp + o.exp).round();
  }
  div(o: Decimal, ctx: CallContext): Decimal {
    if (this.kind === 'nan' || o.kind === 'nan') return Decimal.nan();
    if (this.kind === 'inf') return o.kind === 'inf' ? Decimal.nan() : Decimal.infinity(this.signum * (o.signum || 1));
    if (o.kind === 'inf') return new Decimal(0n, 0);
    if (o.coef === 0n) return ctx.fail('decimal: division by zero');
    // Scale the dividend so that the quotient has PRECISION significant digits and one more to
    // round with; an exact quotient then sheds trailing zeros down to the ideal exponent.
    const scale = PRECISION + 1 + Math.max(0, digitCount(o.coef) - digitCount(this.coef));
    const num = this.coef * pow10(scale);
    let q = num / o.coef;
    const exact = num % o.coef === 0n;
    // An inexact quotient gets one more digit, a 1 that stands for the remainder ("sticky"), so
    // that rounding half to even never mistakes 0.5000…01 for a tie.
    if (!exact) q = q * 10n + BigInt(this.signum * o.signum);
    const d = new Decimal(q, this.exp - o.exp - scale - (exact ? 0 : 1)).round();
    return exact ? d.strip(this.exp - o.exp) : d;
  }
  mod(o: Decimal, ctx: CallContext): Decimal {
    if (this.kind !== 'finite' || o.kind === 'nan') return Decimal.nan();
    if (o.kind === 'inf') return this;
    if (o.coef === 0n) return ctx.fail('decimal: division by zero');
    const [x, y, e] = Decimal.align(this, o);
    return new Decimal(x % y, e);
  }
  neg(): Decimal {
    return new Decimal(-this.coef, this.exp, this.kind);
  }
  abs(): Decimal {
    return this.coef < 0n ? this.neg() : this;
  }

  /** Rounded half to even to `digits` significant digits. */
  round(digits = PRECISION): Decimal {
    if (this.kind !== 'finite') return this;
    const n = digitCount(this.coef);
    if (n <= digits) return this;
    const drop = n - digits;
    const unit = pow10(drop);
    const neg = this.coef < 0n;
    const mag = neg ? -this.coef : this.coef;
    let q = mag / unit;
    const r = mag % unit;
    const half = unit / 2n;
    if (r > half || (r === half && q % 2n === 1n)) q += 1n;
    let exp = this.exp + drop;
    if (digitCount(q) > digits) {
      q /= 10n;
      exp++;
    }
    return new Decimal(neg ? -q : q, exp);
  }
  /** Trailing zeros of the coefficient moved into the exponent, up to the exponent `ideal`. */
  strip(ideal: number): Decimal {
    if (this.kind !== 'finite') return this;
    let c = this.coef;
    let e = this.exp;
    if (c === 0n) return new Decimal(0n, Math.min(Math.max(e, 0), ideal === Infinity ? 0 : Math.max(e, ideal)));
    while (c % 10n === 0n && e < ideal) {
      c /= 10n;
      e++;
    }
    return new Decimal(c, e);
  }

  /** The largest integer not above (`floor`) or the smallest not below (`ceil`) this decimal. */
  integral(up: boolean): Decimal {
    if (this.kind !== 'finite' || this.exp >= 0) return this;
    const unit = pow10(-this.exp);
    let q = this.coef / unit;
    const r = this.coef % unit;
    if (r !== 0n && (up ? r > 0n : r < 0n)) q += up ? 1n : -1n;
    return new Decimal(q, 0);
  }

  sqrt(): Decimal {
    if (this.kind === 'nan' || this.coef < 0n) return Decimal.nan();
    if (this.kind === 'inf' || this.coef === 0n) return this.kind === 'inf' ? this : new Decimal(0n, Math.floor(this.exp / 2));
    // An even exponent and enough digits: the integer square root of the scaled coefficient.
    let shift = 2 * (PRECISION + 1) - digitCount(this.coef);
    if (shift < 0) shift = 0;
    if ((this.exp - shift) % 2 !== 0) shift++;
    const n = this.coef * pow10(shift);
    let root = isqrt(n);
    const exact = root * root === n;
    if (!exact) root = root * 10n + 1n;
    const d = new Decimal(root, (this.exp - shift) / 2 - (exact ? 0 : 1)).round();
    return exact ? d.strip(Math.floor(this.exp / 2)) : d;
  }

  /** e^this. */
  expE(ctx: CallContext): Decimal {
    if (this.kind === 'nan') return this;
    if (this.kind === 'inf') return this.signum > 0 ? this : new Decimal(0n, 0);
    if (this.coef === 0n) return new Decimal(1n, 0);
    const w = PRECISION + GUARD;
    const x = toFixed(this, w);
    const ln10 = lnTen(w);
    // e^x = 10^q · e^r with r = x - q·ln 10 in [0, ln 10).
    let q = x / ln10;
    if (x < 0n && x % ln10 !== 0n) q -= 1n;
    if (q > BigInt(MAX_DIGITS) || q < -BigInt(MAX_DIGITS)) return ctx.fail('decimal: value out of range');
    const r = x - q * ln10;
    // e^r = (e^(r/2^k))^(2^k), the series converging fast for the small argument.
    const k = 16;
    const wk = w + 6;
    const sk = pow10(wk);
    const rk = (r * pow10(wk - w)) / 2n ** BigInt(k);
    let term = sk;
    let sum = sk;
    for (let i = 1n; term !== 0n; i++) {
      term = (term * rk) / sk / i;
      sum += term;
    }
    for (let i = 0; i < k; i++) sum = (sum * sum) / sk;
    return new Decimal(sum / pow10(wk - w), -w + Number(q)).round().strip(0);
  }

  /** The natural logarithm. */
  ln(): Decimal {
    if (this.kind === 'nan' || this.coef < 0n) return Decimal.nan();
    if (this.kind === 'inf') return this;
    if (this.coef === 0n) return Decimal.infinity(-1);
    if (this.coef === 1n && this.exp === 0) return new Decimal(0n, 0);
    const w = PRECISION + GUARD;
    return new Decimal(lnFixed(this, w), -w).round().strip(0);
  }

  log10(): Decimal {
    if (this.kind === 'nan' || this.coef < 0n) return Decimal.nan();
    if (this.kind === 'inf') return this;
    if (this.coef === 0n) return Decimal.infinity(-1);
    // A power of ten has an exact logarithm.
    const t = this.strip(Infinity);
    if (t.coef === 1n) return new Decimal(BigInt(t.exp), 0);
    const w = PRECISION + GUARD;
    const s = pow10(w);
    return new Decimal((lnFixed(this, w) * s) / lnTen(w), -w).round().strip(0);
  }

  power(o: Decimal, ctx: CallContext): Decimal {
    if (this.kind === 'nan' || o.kind === 'nan') return Decimal.nan();
    const e = o.strip(Infinity);
    if (o.kind === 'finite' && e.exp >= 0 && this.kind === 'finite') {
      // An integer power.
      if (e.exp > 6) return ctx.fail('decimal: value out of range');
      const k = e.coef * pow10(e.exp);
      if (k > 100_000n || k < -100_000n) return ctx.fail('decimal: value out of range');
      // Exact by repeated squaring, each step rounded to the precision.
      let result = new Decimal(1n, 0);
      let base: Decimal = this;
      let m = k < 0n ? -k : k;
      while (m > 0n) {
        if (m & 1n) result = bounded(result.mul(base), ctx);
        m >>= 1n;
        if (m > 0n) base = bounded(base.mul(base), ctx);
      }
      return k < 0n ? new Decimal(1n, 0).div(result, ctx) : result;
    }
    if (this.isZero && o.kind === 'finite' && o.coef > 0n) return new Decimal(0n, 0);
    // A negative base with a fractional power, and the infinities, have no decimal answer here.
    if (this.kind === 'inf' || o.kind === 'inf' || this.coef <= 0n) return Decimal.nan();
    // x^y = e^(y·ln x).
    return this.ln().mul(o).expE(ctx);
  }

  override toString(): string {
    if (this.kind === 'nan') return 'NaN';
    if (this.kind === 'inf') return this.coef < 0n ? '-Infinity' : 'Infinity';
    // The General Decimal Arithmetic's to-scientific-string, as Go's decimal library writes it:
    // plain notation unless the exponent is positive or the number is below 1E-6.
    const neg = this.coef < 0n;
    const digits = (neg ? -this.coef : this.coef).toString();
    const adjusted = this.exp + digits.length - 1;
    let text: string;
    if (this.exp <= 0 && adjusted >= -6) {
      if (this.exp === 0) text = digits;
      else {
        const point = digits.length + this.exp;
        text = point > 0 ? `${digits.slice(0, point)}.${digits.slice(point)}` : `0.${'0'.repeat(-point)}${digits}`;
      }
    } else {
      text = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
      text += `E${adjusted >= 0 ? '+' : '-'}${Math.abs(adjusted)}`;
    }
    return (neg ? '-' : '') + text;
  }

  get(name: string, ctx: CallContext): Value {
    const binary = (label: string, op: (o: Decimal, c: CallContext) => Value) =>
      fn(`decimal.${label}`, 1, ([v], c) => (v === undefined ? undefined : op(Decimal.from(v, c), c)));
    const unary = (label: string, op: (c: CallContext) => Value) => fn(`decimal.${label}`, 0, (_args, c) => op(c));
    const finite = (what: string): void => {
      if (this.kind !== 'finite') ctx.fail(`decimal: ${this} has no ${what}`);
    };
    switch (name) {
      case 'string':
        return this.toString();
      case 'float':
        return new SFloat(this.kind === 'nan' ? NaN : this.kind === 'inf' ? this.signum * Infinity : Number(this.toString()));
      case 'int':
        finite('int');
        return Number(this.exp >= 0 ? this.coef * pow10(this.exp) : this.coef / pow10(-this.exp));
      case 'sign':
        return this.signum;
      case 'coefficient':
        finite('coefficient');
        return Number(this.coef);
      case 'exponent':
        finite('exponent');
        return this.exp;
      case 'is_infinite':
        return this.kind === 'inf';
      case 'is_nan':
        return this.kind === 'nan';
      case 'add':
        return binary(name, (o, c) => bounded(this.add(o), c));
      case 'subtract':
      case 'sub':
        return binary(name, (o, c) => bounded(this.sub(o), c));
      case 'multiply':
      case 'mul':
        return binary(name, (o, c) => bounded(this.mul(o), c));
      case 'divide':
      case 'div':
        return binary(name, (o, c) => bounded(this.div(o, c), c));
      case 'modulo':
      case 'mod':
      case 'remainder':
      case 'rem':
        return binary(name, (o, c) => bounded(this.mod(o, c), c));
      case 'power':
      case 'pow':
        return binary(name, (o, c) => bounded(this.power(o, c), c));
      // The page's methods are called: `decimal.new(1.5).negate()`, `.abs()`, `.sqrt()`…
      case 'negate':
      case 'neg':
        return unary(name, () => this.neg());
      case 'absolute':
      case 'abs':
        return unary(name, () => this.abs());
      case 'exp':
        return unary(name, (c) => bounded(this.expE(c), c));
      case 'loge':
      case 'ln':
        return unary(name, () => this.ln());
      case 'log10':
      case 'log':
        return unary(name, () => this.log10());
      case 'square_root':
      case 'sqrt':
        return unary(name, () => this.sqrt());
      case 'ceiling':
      case 'ceil':
        return unary(name, () => this.integral(true));
      case 'floor':
        return unary(name, () => this.integral(false));
      case 'is':
      case 'equals':
      case 'eq':
        return binary(name, (o) => this.cmp(o) === 0);
      case 'is_not':
      case 'not_equals':
      case 'ne':
        return binary(name, (o) => this.cmp(o) !== 0);
      case 'less_than':
      case 'lt':
        return binary(name, (o) => (this.cmp(o) ?? 0) < 0);
      case 'less_than_or_equals':
      case 'lte':
        return binary(name, (o) => this.cmp(o) !== undefined && this.cmp(o)! <= 0);
      case 'greater_than':
      case 'gt':
        return binary(name, (o) => (this.cmp(o) ?? 0) > 0);
      case 'greater_than_or_equals':
      case 'gte':
        return binary(name, (o) => this.cmp(o) !== undefined && this.cmp(o)! >= 0);
    }
    return undefined;
  }
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  // Newton's iteration from a power of two above the root descends to it.
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2) + 1);
  for (;;) {
    const y = (x + n / x) / 2n;
    if (y >= x) return x;
    x = y;
  }
}

/** `d` as an integer scaled by 10^w (truncated). */
function toFixed(d: Decimal, w: number): bigint {
  const e = d.exp + w;
  return e >= 0 ? d.coef * pow10(e) : d.coef / pow10(-e);
}

/** 2·atanh(z) for |z| < 1, z and the result scaled by 10^w: ln((1 + z) / (1 - z)). */
function twoAtanh(z: bigint, s: bigint): bigint {
  const z2 = (z * z) / s;
  let power = z;
  let sum = 0n;
  for (let k = 1n; power !== 0n; k += 2n) {
    sum += power / k;
    power = (power * z2) / s;
  }
  return 2n * sum;
}

const lnCache = new Map<number, { ln2: bigint; ln10: bigint }>();
function constants(w: number): { ln2: bigint; ln10: bigint } {
  let c = lnCache.get(w);
  if (!c) {
    const s = pow10(w);
    const ln2 = twoAtanh(s / 3n, s); // ln 2 = 2·atanh(1/3)
    const ln10 = 3n * ln2 + twoAtanh(s / 9n, s); // ln 10 = 3·ln 2 + ln 1.25, ln 1.25 = 2·atanh(1/9)
    c = { ln2, ln10 };
    lnCache.set(w, c);
  }
  return c;
}
const lnTen = (w: number): bigint => constants(w).ln10;

/** ln of a positive finite decimal, scaled by 10^w. */
function lnFixed(d: Decimal, w: number): bigint {
  const s = pow10(w);
  const { ln2, ln10 } = constants(w);
  // d = m · 10^p with m in [0.1, 1), then m · 2^k in [0.5, 1).
  const n = digitCount(d.coef);
  const p = d.exp + n;
  let m = (d.coef * s) / pow10(n);
  let k = 0n;
  while (m * 2n < s) {
    m *= 2n;
    k++;
  }
  const z = ((m - s) * s) / (m + s);
  return twoAtanh(z, s) - k * ln2 + BigInt(p) * ln10;
}

export function decimalImport(): SObject {
  const check = (label: string, test: (d: Decimal) => boolean) =>
    fn(`decimal.${label}`, 1, ([v], ctx) => (v === undefined ? undefined : test(Decimal.from(v, ctx))));
  const infinity = (label: string) =>
    fn(`decimal.${label}`, 1, ([sign], ctx) => {
      if (sign === undefined) return undefined;
      if (typeof sign !== 'number' && !(sign instanceof SFloat)) return ctx.fail(`decimal.${label}: the sign must be a number, got ${typeOf(sign)}`);
      return Decimal.infinity(typeof sign === 'number' ? sign : sign.v);
    });
  const isInf = check('is_infinite', (d) => d.kind === 'inf');
  const isNan = check('is_nan', (d) => d.kind === 'nan');
  return new RecordObject('import', {
    new: fn('decimal.new', 1, ([v], ctx) => (v === undefined ? undefined : Decimal.from(v, ctx))),
    infinity: infinity('infinity'),
    inf: infinity('inf'),
    nan: Decimal.nan(),
    is_infinite: isInf,
    is_inf: isInf,
    isinf: isInf,
    isinfinite: isInf,
    is_nan: isNan,
    isnan: isNan,
  });
}
