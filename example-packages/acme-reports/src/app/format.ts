const grouping = new Intl.NumberFormat("en-US");

/** 12345 -> "12,345" */
export function formatCount(n: number): string {
  return grouping.format(n);
}
