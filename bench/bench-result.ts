/** One benchmark: a measurement and the baseline it is compared with, both taken in the same run. */
export interface BenchResult {
  name: string;
  baseline: { label: string; value: number; unit: string };
  measured: { label: string; value: number; unit: string };
  lowerIsBetter: boolean;
}
