// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { SliceExpressionNode, AstNode } from './ast-nodes.fast.js';
import type { CompileExpression, Evaluate } from './compiled-closures.fast.js';
import { isArrayKind, kindOf } from './template-values.fast.js';

/** `object[start:stop:step]` on a list or a string, as the interpreter slices. */
export function compileSlice(object: Evaluate, node: SliceExpressionNode, expression: CompileExpression): Evaluate {
  const part = (child: AstNode | undefined): Evaluate => (child ? expression(child) : () => undefined);
  const [start, stop, step] = [part(node.start), part(node.stop), part(node.step)];
  return (scope) => {
    const value = object(scope);
    const kind = kindOf(value);
    if (!(isArrayKind(kind) || kind === 'string')) throw new Error('Slice object must be an array or string');
    const from = sliceBound(start(scope), 'start');
    const to = sliceBound(stop(scope), 'stop');
    const by = sliceBound(step(scope), 'step');
    if (kind === 'string') return sliceItems(Array.from(value as string), from, to, by).join('');
    return sliceItems(value as unknown[], from, to, by);
  };
}

/** Python-style slicing, the interpreter's `slice`. */
function sliceItems<T>(array: T[], start: number | undefined, stop: number | undefined, step = 1): T[] {
  const direction = Math.sign(step);
  if (direction >= 0) {
    start = (start ??= 0) < 0 ? Math.max(array.length + start, 0) : Math.min(start, array.length);
    stop = (stop ??= array.length) < 0 ? Math.max(array.length + stop, 0) : Math.min(stop, array.length);
  } else {
    start = (start ??= array.length - 1) < 0 ? Math.max(array.length + start, -1) : Math.min(start, array.length - 1);
    stop = (stop ??= -1) < -1 ? Math.max(array.length + stop, -1) : Math.min(stop, array.length - 1);
  }
  const result: T[] = [];
  for (let i = start; direction * i < direction * stop; i += step) result.push(array[i] as T);
  return result;
}

function sliceBound(value: unknown, name: string): number | undefined {
  if (value === undefined || kindOf(value) === 'integer') return value as number | undefined;
  throw new Error(`Slice ${name} must be numeric or undefined`);
}
