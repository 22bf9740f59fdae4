/** One side of a comparison: what was measured, and in what unit. */
export interface Side {
  label: string;
  value: number;
  unit: string;
}

/** A figure fixed before the run (a goal, or a number measured elsewhere): never a baseline, always named as such. */
export interface FixedFigure extends Side {
  /** Where the figure comes from. */
  source: string;
}

/** One benchmark: a measurement and the baseline it is compared with, both taken in the same run. */
export interface BenchResult {
  name: string;
  baseline: Side;
  measured: Side;
  lowerIsBetter: boolean;
  /** A goal for the measurement, printed beside the same-run ratio. */
  target?: FixedFigure;
}

/** A measurement with no baseline that can be taken in the same run: held to a target, and printed as one. */
export interface TargetResult {
  name: string;
  measured: Side;
  target: FixedFigure;
  lowerIsBetter: boolean;
}

export type BenchLine = BenchResult | TargetResult;
