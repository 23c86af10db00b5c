// A small dependency-free SVG chart: the project list's CPU per request (solid, left axis; server
// plus database on PostgreSQL) and p50 latency (dashed, right axis) against the number of
// projects (log x), one line per caller, one panel per database engine.
export interface ScalePoint {
  projects: number;
  cpuUs: number;
  p50: number;
}
export interface ScalePanel {
  title: string;
  cpuLabel: string;
  series: Array<{ caller: string; points: ScalePoint[] }>;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e'];
const W = 600,
  H = 340,
  L = 64,
  R = 64,
  T = 36,
  B = 84;

export function scaleChart(panels: ScalePanel[]): string {
  const width = W * Math.max(1, panels.length);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
${panels.map((p, i) => `<g transform="translate(${i * W},0)">${panel(p)}</g>`).join('\n')}
</svg>
`;
}

function panel(p: ScalePanel): string {
  const points = p.series.flatMap((s) => s.points);
  if (points.length === 0) return '';
  const xs = points.map((q) => Math.log10(q.projects));
  const xMin = Math.min(...xs),
    xMax = Math.max(...xs);
  const cpuMax = niceMax(Math.max(...points.map((q) => q.cpuUs)));
  const msMax = niceMax(Math.max(...points.map((q) => q.p50)));
  const x = (v: number) => L + ((Math.log10(v) - xMin) / (xMax - xMin || 1)) * (W - L - R);
  const yCpu = (v: number) => H - B - (v / cpuMax) * (H - T - B);
  const yMs = (v: number) => H - B - (v / msMax) * (H - T - B);
  const path = (pts: ScalePoint[], y: (q: ScalePoint) => number) =>
    pts.map((q, i) => `${i ? 'L' : 'M'}${x(q.projects).toFixed(1)},${y(q).toFixed(1)}`).join(' ');
  const sizes = [...new Set(points.map((q) => q.projects))].sort((a, b) => a - b);
  const xTicks = sizes.map((s) => `<text x="${x(s).toFixed(1)}" y="${H - B + 18}" text-anchor="middle">${s.toLocaleString('en')}</text>`).join('');
  const fractions = [0, 0.25, 0.5, 0.75, 1];
  const yTicks = fractions
    .map(
      (f) =>
        `<text x="${L - 6}" y="${(yCpu(f * cpuMax) + 4).toFixed(1)}" text-anchor="end">${round(f * cpuMax)}</text>` +
        `<text x="${W - R + 6}" y="${(yCpu(f * cpuMax) + 4).toFixed(1)}">${round(f * msMax)}</text>` +
        `<line x1="${L}" x2="${W - R}" y1="${yCpu(f * cpuMax).toFixed(1)}" y2="${yCpu(f * cpuMax).toFixed(1)}" stroke="#eee"/>`,
    )
    .join('');
  const lines = p.series
    .map((s, i) => {
      const c = COLORS[i % COLORS.length];
      return (
        `<path d="${path(s.points, (q) => yCpu(q.cpuUs))}" fill="none" stroke="${c}" stroke-width="2"/>` +
        `<path d="${path(s.points, (q) => yMs(q.p50))}" fill="none" stroke="${c}" stroke-width="1.5" stroke-dasharray="5,3"/>`
      );
    })
    .join('');
  const legend = p.series.map((s, i) => `<text x="${L + i * 150}" y="${H - 22}" fill="${COLORS[i % COLORS.length]}">■ ${s.caller}</text>`).join('');
  return `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${p.title}: project list (page of 20) by organization size</text>
<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/><line x1="${W - R}" y1="${T}" x2="${W - R}" y2="${H - B}" stroke="black"/>
${yTicks}${xTicks}${lines}
<text x="${W / 2}" y="${H - B + 36}" text-anchor="middle">projects in the organization (log scale)</text>
<text x="14" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(T + H - B) / 2})">${p.cpuLabel}</text>
<text x="${W - 12}" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(90 ${W - 12} ${(T + H - B) / 2})">p50 latency, ms (dashed)</text>
${legend}`;
}

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(v));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= v * 1.05) return step * magnitude;
  return 10 * magnitude;
}

function round(v: number): string {
  return v >= 10 ? String(Math.round(v)) : v.toFixed(1);
}
