import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { money } from '../lib/money';

export interface ChartPoint {
  label: string;
  bets: number;
  payouts: number;
  ggr: number;
}

/** Bets, payouts and GGR per period, one currency (amounts of different currencies never share an axis). */
export function MoneyChart({ points, currency, title }: { points: ChartPoint[]; currency: string; title: string }) {
  return (
    <figure className="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={points} margin={{ top: 8, right: 16, bottom: 8, left: 16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--grid)" />
          <XAxis dataKey="label" stroke="var(--muted)" fontSize={12} />
          <YAxis stroke="var(--muted)" fontSize={12} tickFormatter={(v: number) => money(v, currency)} width={110} />
          <Tooltip formatter={(v) => money(Number(v), currency)} contentStyle={{ background: 'var(--card)', color: 'var(--fg)' }} />
          <Legend />
          <Bar dataKey="bets" name="Bets" fill="var(--c1)" isAnimationActive={false} />
          <Bar dataKey="payouts" name="Payouts" fill="var(--c2)" isAnimationActive={false} />
          <Bar dataKey="ggr" name="GGR" fill="var(--c3)" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
