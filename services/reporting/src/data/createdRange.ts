/**
 * The exclusive upper bound of a list's created_at range. Stored times carry microseconds while the
 * API shows milliseconds: "to" includes its whole millisecond. A half-open bound (instead of
 * date_trunc on the column) keeps the index usable.
 */
export function createdUntil(criteria: { createdTo?: Date }): Date | undefined {
  return criteria.createdTo && new Date(criteria.createdTo.getTime() + 1);
}
