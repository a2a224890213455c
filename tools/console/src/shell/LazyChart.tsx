import { lazy, Suspense, type ComponentProps } from 'react';

/** The chart library is the bundle's largest part: loaded (from the bundle, never a CDN) only by screens with a chart. */
const Chart = lazy(() => import('./Chart').then((m) => ({ default: m.MoneyChart })));

export function MoneyChart(props: ComponentProps<typeof Chart>) {
  return (
    <Suspense fallback={<p role="status">Loading chart…</p>}>
      <Chart {...props} />
    </Suspense>
  );
}
