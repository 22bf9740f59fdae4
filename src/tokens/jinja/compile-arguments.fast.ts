// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { AstNode, KeywordArgumentNode, SpreadNode } from './ast-nodes.fast.js';
import type { CompileExpression, Evaluate } from './compiled-closures.fast.js';
import type { Scope } from './scope.fast.js';
import { isArrayKind, kindOf } from './template-values.fast.js';

/** A call's compiled arguments, evaluated positional first, as the interpreter does. */
export interface Arguments {
  positional: (scope: Scope) => unknown[];
  /** Absent when the call has no keyword arguments. */
  keyword: ((scope: Scope) => Map<string, unknown>) | undefined;
}

const isKeyword = (node: AstNode): boolean => node.type === 'KeywordArgumentExpression' || node.type === 'KeywordSpreadExpression';

/** `f(a, *rest, k=v, **more)`: splits and compiles a call's argument nodes. */
export function compileArguments(nodes: AstNode[], expression: CompileExpression): Arguments {
  const keyword = nodes.filter(isKeyword);
  return {
    positional: positionalArguments(
      nodes.filter((node) => !isKeyword(node)),
      expression,
    ),
    keyword: keyword.length === 0 ? undefined : keywordArguments(keyword, expression),
  };
}

function positionalArguments(nodes: AstNode[], expression: CompileExpression): (scope: Scope) => unknown[] {
  const positional = nodes.map((node) =>
    node.type === 'SpreadExpression' ? { spread: true, evaluate: expression((node as SpreadNode).argument) } : { spread: false, evaluate: expression(node) },
  );
  if (!positional.some((argument) => argument.spread)) return (scope) => positional.map((argument) => argument.evaluate(scope));
  return (scope) => {
    const values: unknown[] = [];
    for (const argument of positional) {
      const value = argument.evaluate(scope);
      if (!argument.spread) {
        values.push(value);
      } else {
        if (!isArrayKind(kindOf(value))) throw new Error(`Cannot unpack non-iterable type: ${kindOf(value)}`);
        values.push(...(value as unknown[]));
      }
    }
    return values;
  };
}

function keywordArguments(nodes: AstNode[], expression: CompileExpression): (scope: Scope) => Map<string, unknown> {
  // A `**mapping` has no name: its entries are added when it is evaluated.
  const keyword: { name: string | undefined; evaluate: Evaluate }[] = nodes.map((node) =>
    node.type === 'KeywordArgumentExpression'
      ? { name: (node as KeywordArgumentNode).key.value, evaluate: expression((node as KeywordArgumentNode).value) }
      : { name: undefined, evaluate: expression((node as SpreadNode).argument) },
  );
  return (scope) => {
    const values = new Map<string, unknown>();
    const add = (name: string, value: unknown): void => {
      if (values.has(name)) throw new Error(`Got multiple values for keyword argument '${name}'`);
      values.set(name, value);
    };
    for (const argument of keyword) {
      const value = argument.evaluate(scope);
      if (argument.name !== undefined) {
        add(argument.name, value);
      } else {
        if (kindOf(value) !== 'object') throw new Error(`Argument after ** must be a mapping, not ${kindOf(value)}`);
        for (const [name, item] of Object.entries(value as object)) add(name, item);
      }
    }
    return values;
  };
}
