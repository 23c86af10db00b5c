// A small dependency-free SVG line chart: list latency against the number of projects (log x).
export function scaleChart(points: Array<{ projects: number; p50: number; p99: number }>): string {
  const W = 580, H = 320, L = 60, R = 45, T = 30, B = 50;
  if (points.length === 0) return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"/>`;
  const xs = points.map((p) => Math.log10(p.projects));
  const xMin = Math.min(...xs), xMax = Math.max(...xs);
  const yMax = Math.max(1, ...points.map((p) => p.p99)) * 1.1;
  const x = (v: number) => L + ((Math.log10(v) - xMin) / (xMax - xMin || 1)) * (W - L - R);
  const y = (v: number) => H - B - (v / yMax) * (H - T - B);
  const line = (key: 'p50' | 'p99') => points.map((p, i) => `${i ? 'L' : 'M'}${x(p.projects).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ');
  const ticks = points
    .map((p) => `<text x="${x(p.projects).toFixed(1)}" y="${H - B + 18}" text-anchor="middle">${p.projects.toLocaleString('en')}</text>`)
    .join('');
  const yTicks = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => `<text x="${L - 8}" y="${(y(f * yMax) + 4).toFixed(1)}" text-anchor="end">${(f * yMax).toFixed(1)}</text>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="${W / 2}" y="18" text-anchor="middle" font-size="14">Project list latency (page of 20) by organization size</text>
<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>
${ticks}${yTicks}
<text x="${W / 2}" y="${H - 10}" text-anchor="middle">projects in the organization (log scale)</text>
<text x="16" y="${H / 2}" text-anchor="middle" transform="rotate(-90 16 ${H / 2})">latency, ms</text>
<path d="${line('p50')}" fill="none" stroke="#1f77b4" stroke-width="2"/><path d="${line('p99')}" fill="none" stroke="#d62728" stroke-width="2" stroke-dasharray="5,3"/>
<text x="${W - R - 90}" y="${T + 10}" fill="#1f77b4">— p50</text><text x="${W - R - 90}" y="${T + 26}" fill="#d62728">- - p99</text>
</svg>
`;
}
