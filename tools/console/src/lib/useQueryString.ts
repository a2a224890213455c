import { useLocation, useSearch } from 'wouter';

/** A screen's filters live in the query string, so a link or a reload shows the same thing. */
export function useQueryString(): [URLSearchParams, (next: Record<string, string | undefined>) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const set = (next: Record<string, string | undefined>) => {
    const merged = new URLSearchParams(search);
    for (const [k, v] of Object.entries(next)) {
      if (v === undefined || v === '') merged.delete(k);
      else merged.set(k, v);
    }
    const s = merged.toString();
    navigate(s ? `${location}?${s}` : location);
  };
  return [params, set];
}
