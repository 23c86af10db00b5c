// The `decimal` import: exact decimal arithmetic (coefficient × 10^exponent with a BigInt
// coefficient); division keeps 34 significant digits, like IEEE decimal128.
import { fn } from './hostfn.ts';
import { RecordObject, SFloat, SObject, typeOf, type CallContext, type Value } from './values.ts';

const PRECISION = 34;
/** Exponents and coefficient lengths past this are an error: BigInt powers of 10 must stay small. */
const MAX_DIGITS = 6144;

function bounded(d: Decimal, ctx: CallContext): Decimal {
  if (Math.abs(d.exp) > MAX_DIGITS || d.coef.toString().length > MAX_DIGITS) return ctx.fail('decimal: value out of range');
  return d;
}

export class Decimal extends SObject {
  readonly typeName = 'decimal';
  readonly coef: bigint;
  readonly exp: number;
  constructor(coef: bigint, exp: number) {
    super();
    this.coef = coef;
    this.exp = exp;
  }

  static parse(text: string): Decimal | null {
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
      const d = Decimal.parse(String(v.v));
      if (d) return d;
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
    return [a.coef * 10n ** BigInt(a.exp - exp), b.coef * 10n ** BigInt(b.exp - exp), exp];
  }

  cmp(o: Decimal): number {
    const [x, y] = Decimal.align(this, o);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  add(o: Decimal): Decimal {
    const [x, y, e] = Decimal.align(this, o);
    return new Decimal(x + y, e);
  }
  sub(o: Decimal): Decimal {
    const [x, y, e] = Decimal.align(this, o);
    return new Decimal(x - y, e);
  }
  mul(o: Decimal): Decimal {
    return new Decimal(this.coef * o.coef, this.exp + o.exp);
  }
  div(o: Decimal, ctx: CallContext): Decimal {
    if (o.coef === 0n) return ctx.fail('decimal: division by zero');
    // Scale the dividend so that the quotient has PRECISION significant digits, then trim zeros.
    const scale = PRECISION + o.coef.toString().replace('-', '').length;
    const q = (this.coef * 10n ** BigInt(scale)) / o.coef;
    return new Decimal(q, this.exp - o.exp - scale).trim();
  }
  mod(o: Decimal, ctx: CallContext): Decimal {
    if (o.coef === 0n) return ctx.fail('decimal: division by zero');
    const [x, y, e] = Decimal.align(this, o);
    return new Decimal(x % y, e);
  }
  trim(): Decimal {
    let c = this.coef;
    let e = this.exp;
    while (c !== 0n && c % 10n === 0n && e < 0) {
      c /= 10n;
      e++;
    }
    return new Decimal(c, e);
  }
  override toString(): string {
    const neg = this.coef < 0n;
    let digits = (neg ? -this.coef : this.coef).toString();
    if (this.exp >= 0) digits += '0'.repeat(this.exp);
    else {
      const point = digits.length + this.exp;
      digits = point > 0 ? `${digits.slice(0, point)}.${digits.slice(point)}` : `0.${'0'.repeat(-point)}${digits}`;
    }
    return (neg ? '-' : '') + digits;
  }

  get(name: string, ctx: CallContext): Value {
    const binary = (label: string, op: (o: Decimal, c: CallContext) => Value) =>
      fn(`decimal.${label}`, 1, ([v], c) => (v === undefined ? undefined : op(Decimal.from(v, c), c)));
    switch (name) {
      case 'string':
        return this.toString();
      case 'float':
        return new SFloat(Number(this.toString()));
      case 'int':
        return Number(this.exp >= 0 ? this.coef * 10n ** BigInt(this.exp) : this.coef / 10n ** BigInt(-this.exp));
      case 'sign':
        return this.coef > 0n ? 1 : this.coef < 0n ? -1 : 0;
      case 'coefficient':
        return Number(this.coef);
      case 'exponent':
        return this.exp;
      case 'is_infinite':
      case 'is_nan':
        return false;
      case 'add':
        return binary(name, (o, c) => bounded(this.add(o), c));
      case 'subtract':
        return binary(name, (o, c) => bounded(this.sub(o), c));
      case 'multiply':
        return binary(name, (o, c) => bounded(this.mul(o), c));
      case 'divide':
        return binary(name, (o, c) => bounded(this.div(o, c), c));
      case 'modulo':
        return binary(name, (o, c) => bounded(this.mod(o, c), c));
      case 'neg':
        return new Decimal(-this.coef, this.exp);
      case 'abs':
        return new Decimal(this.coef < 0n ? -this.coef : this.coef, this.exp);
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
        return binary(name, (o) => this.cmp(o) < 0);
      case 'less_than_or_equals':
      case 'lte':
        return binary(name, (o) => this.cmp(o) <= 0);
      case 'greater_than':
      case 'gt':
        return binary(name, (o) => this.cmp(o) > 0);
      case 'greater_than_or_equals':
      case 'gte':
        return binary(name, (o) => this.cmp(o) >= 0);
    }
    void ctx;
    return undefined;
  }
}

export function decimalImport(): SObject {
  return new RecordObject('import', {
    new: fn('decimal.new', 1, ([v], ctx) => (v === undefined ? undefined : Decimal.from(v, ctx))),
  });
}
