// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { ForNode, IdentifierNode, LiteralNode, AstNode, SelectExpressionNode } from './ast-nodes.fast.js';
import { bindable, bindableTupleNames } from './bindable-name.fast.js';
import type { Evaluate, Render, StatementCompiler } from './compiled-closures.fast.js';
import { BREAK, CONTINUE } from './loop-control.fast.js';
import { LoopInfo } from './loop-info.fast.js';
import { Scope } from './scope.fast.js';
import { isArrayKind, kindOf, truthy } from './template-values.fast.js';

/** How a loop variable receives each item: one name, or a tuple of names unpacked from a list item. */
interface LoopTarget {
  /** The unpacked names; undefined for a single name. */
  names: string[] | undefined;
  bind: (scope: Scope, item: unknown) => void;
}

/** `{% for target in iterable [if test] %}body{% else %}otherwise{% endfor %}`, with `loop.*`, `break` and `continue`. */
export function compileForLoop(node: ForNode, compile: StatementCompiler): Render {
  const target = loopTarget(node.loopvar);
  const select = node.iterable.type === 'SelectExpression' ? (node.iterable as SelectExpressionNode) : undefined;
  const iterable = compile.expression(select ? select.lhs : node.iterable);
  const test = select ? compile.expression(select.test) : undefined;
  const body = compile.block(node.body);
  const otherwise = compile.block(node.defaultBlock);
  const iterate = compile.hasLoopControl ? iterateWithControl : iterateWithoutControl;
  return (scope) => {
    const loopScope = new Scope(scope);
    let items = loopItems(iterable(loopScope));
    if (target.names || test) items = checkedItems(items, target, test, loopScope);
    if (items.length === 0) return otherwise(loopScope);
    const text = iterate(items, target.bind, body, loopScope);
    // No completed iteration (each ended in `continue`, or the first in `break`) renders the `else` block, as in the interpreter.
    return text === undefined ? otherwise(loopScope) : text;
  };
}

function loopTarget(loopvar: AstNode): LoopTarget {
  if (loopvar.type === 'Identifier') {
    const name = bindable((loopvar as IdentifierNode).value);
    return {
      names: undefined,
      bind: (scope, item) => scope.assign(name, item),
    };
  }
  const names = bindableTupleNames(loopvar as LiteralNode<AstNode[]>);
  return { names, bind: (scope, item) => names.forEach((name, j) => scope.assign(name, (item as unknown[])[j])) };
}

/** The items a loop walks: a list's items or a mapping's keys. */
function loopItems(value: unknown): unknown[] {
  const kind = kindOf(value);
  if (isArrayKind(kind)) return value as unknown[];
  if (kind === 'object') return Object.keys(value as object);
  throw new Error(`Expected iterable or object type in for loop: got ${kind}`);
}

/** The items left after unpacking checks and the loop's `if` filter, all before the first iteration as in the interpreter. */
function checkedItems(items: unknown[], target: LoopTarget, test: Evaluate | undefined, loopScope: Scope): unknown[] {
  const { names, bind } = target;
  const kept: unknown[] = [];
  for (const item of items) {
    if (names) {
      // The interpreter checks every item before the first iteration: TupleValue items fail too.
      if (kindOf(item) !== 'array') throw new Error(`Cannot unpack non-iterable type: ${kindOf(item)}`);
      const length = (item as unknown[]).length;
      if (names.length !== length) throw new Error(`Too ${names.length > length ? 'few' : 'many'} items to unpack`);
    }
    if (test) {
      const testScope = new Scope(loopScope);
      bind(testScope, item);
      if (!truthy(test(testScope))) continue;
    }
    kept.push(item);
  }
  return kept;
}

function iterateWithoutControl(items: unknown[], bind: LoopTarget['bind'], body: Render, loopScope: Scope): string {
  let text = '';
  for (let i = 0; i < items.length; ++i) {
    loopScope.assign('loop', new LoopInfo(i, items));
    bind(loopScope, items[i]);
    text += body(loopScope);
  }
  return text;
}

/** The loop's text, or undefined when no iteration completed (each one ended in `continue`, or the first in `break`). */
function iterateWithControl(items: unknown[], bind: LoopTarget['bind'], body: Render, loopScope: Scope): string | undefined {
  let text = '';
  let noIteration = true;
  for (let i = 0; i < items.length; ++i) {
    loopScope.assign('loop', new LoopInfo(i, items));
    bind(loopScope, items[i]);
    try {
      text += body(loopScope);
    } catch (error) {
      if (error === CONTINUE) continue;
      if (error === BREAK) break;
      throw error;
    }
    noIteration = false;
  }
  return noIteration ? undefined : text;
}
