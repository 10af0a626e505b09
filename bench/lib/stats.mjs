/** @file The statistics the benchmark reports share: medians and ratios of medians. */

/** The median of `xs` (the mean of the two middle values for an even count). */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** `a / b` to two decimals, or "n/a" when `b` is not positive. */
export const ratio = (a, b) => (b > 0 ? (a / b).toFixed(2) : "n/a");
