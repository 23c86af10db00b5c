// A subset of the `sockaddr` import: IPv4/IPv6 addresses and CIDR containment.
import { fn } from './hostfn.ts';
import { RecordObject, SObject, type CallContext, type Value } from './values.ts';

/** 4 or 6 for a valid IPv4 or IPv6 address, else 0 (no dotted-quad tail in IPv6). */
function isIP(host: string): 0 | 4 | 6 {
  if (/^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(host)) return 4;
  if (!/^[0-9a-fA-F:]+$/.test(host) || host.split('::').length > 2) return 0;
  const groups = host.split('::').flatMap((half) => (half ? half.split(':') : []));
  if (groups.some((g) => g.length === 0 || g.length > 4)) return 0;
  return (host.includes('::') ? groups.length < 8 : groups.length === 8) ? 6 : 0;
}

interface Net {
  bits: number;
  addr: bigint;
  prefix: number;
}

function parse(v: Value, ctx: CallContext): Net {
  if (typeof v !== 'string') return ctx.fail('sockaddr: expected an address string');
  const [host, prefixText] = v.split('/') as [string, string | undefined];
  const family = isIP(host);
  if (family === 0) return ctx.fail(`sockaddr: invalid address ${JSON.stringify(v)}`);
  const bits = family === 4 ? 32 : 128;
  let addr = 0n;
  if (family === 4) for (const part of host.split('.')) addr = (addr << 8n) | BigInt(Number(part));
  else {
    const [head, tail] = host.includes('::') ? host.split('::') : [host, null];
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = tail === null ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
    for (const g of groups) addr = (addr << 16n) | BigInt(parseInt(g || '0', 16));
  }
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return ctx.fail(`sockaddr: invalid prefix in ${JSON.stringify(v)}`);
  return { bits, addr, prefix };
}

const mask = (n: Net, prefix: number) => (n.addr >> BigInt(n.bits - prefix)) << BigInt(n.bits - prefix);

export function sockaddrImport(): SObject {
  return new RecordObject('import', {
    is_contained: fn('sockaddr.is_contained', 2, ([outer, inner], ctx) => {
      const a = parse(outer, ctx);
      const b = parse(inner, ctx);
      return a.bits === b.bits && b.prefix >= a.prefix && mask(a, a.prefix) === mask(b, a.prefix);
    }),
    is_equal: fn('sockaddr.is_equal', 2, ([x, y], ctx) => {
      const a = parse(x, ctx);
      const b = parse(y, ctx);
      return a.bits === b.bits && a.addr === b.addr && a.prefix === b.prefix;
    }),
    is_ipv4: fn('sockaddr.is_ipv4', 1, ([x]) => typeof x === 'string' && isIP(x.split('/')[0]!) === 4),
    is_ipv6: fn('sockaddr.is_ipv6', 1, ([x]) => typeof x === 'string' && isIP(x.split('/')[0]!) === 6),
  });
}
