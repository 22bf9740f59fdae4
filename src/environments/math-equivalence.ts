import type { ComputeEngine } from '@cortex-js/compute-engine';

/** Longer answers are compared as strings only: symbolic work on adversarial input can run for seconds. */
const MAX_SYMBOLIC_LENGTH = 200;
const RELATIVE_TOLERANCE = 1e-9;
const SAMPLE_POINTS = [0.5, 1.7, -2.3];

let engine: Promise<ComputeEngine> | undefined;

/** Loaded on first use: the compute engine costs ~100 ms to start, which a CLI that never grades math should not pay. */
function computeEngine(): Promise<ComputeEngine> {
  engine ??= import('@cortex-js/compute-engine').then(({ ComputeEngine }) => new ComputeEngine());
  return engine;
}

/**
 * Whether two LaTeX answers are mathematically the same, tried in order: normalized text, the compute
 * engine's own equality (numbers, radicals, sets, intervals, tuples), an expanded difference that
 * simplifies to 0 (expanded vs factored polynomials), then agreement at sample points for the free variables.
 */
export async function areMathEquivalent(answer: string, truth: string): Promise<boolean> {
  const a = normalizeLatex(answer);
  const b = normalizeLatex(truth);
  if (a === b) return true;
  if (a.length === 0 || b.length === 0 || a.length > MAX_SYMBOLIC_LENGTH || b.length > MAX_SYMBOLIC_LENGTH) return false;
  const ce = await computeEngine();
  const left = ce.parse(a);
  const right = ce.parse(b);
  if (left === null || right === null || !left.isValid || !right.isValid) return false;
  const equal = left.isEqual(right);
  if (equal !== undefined) return equal;
  if (
    ce
      .box(['Expand', ['Subtract', left, right]])
      .evaluate()
      .simplify()
      .is(0)
  )
    return true;
  return agreesAtSamplePoints(ce, left, right);
}

type Expression = NonNullable<ReturnType<ComputeEngine['parse']>>;

function agreesAtSamplePoints(ce: ComputeEngine, left: Expression, right: Expression): boolean {
  const variables = [...new Set([...left.unknowns, ...right.unknowns])];
  if (variables.length === 0) return false;
  return SAMPLE_POINTS.every((point, i) => {
    const values = Object.fromEntries(variables.map((name, j) => [name, ce.number(point + j * 0.37 + i * 0.11)]));
    const x = left.subs(values).N().re;
    const y = right.subs(values).N().re;
    return Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) <= RELATIVE_TOLERANCE * Math.max(1, Math.abs(x), Math.abs(y));
  });
}

/** Strips what changes the look of an answer but not its value: `$`, `\text{}`, `\left`, spacing, degrees, a leading `x =`. */
export function normalizeLatex(latex: string): string {
  return latex
    .trim()
    .replace(/^\$+|\$+$/g, '')
    .replace(/\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}/g, '$1')
    .replace(/\\(?:left|right)(?=[()[\]{}|.\\])/g, '')
    .replace(/\\[!,;:]|\\ /g, '')
    .replace(/\^\{?\\circ\}?/g, '')
    .replace(/\\[dt]frac/g, '\\frac')
    .replace(/^[a-zA-Z]\s*=\s*/, '')
    .replace(/\.$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}
