// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { AstNode, CallStatementNode, FilterStatementNode, ForNode, IfNode, LiteralNode, MacroNode, SetNode } from './ast-nodes.fast.js';
import { compileExpression } from './compile-expression.fast.js';
import { compileFilter } from './compile-filter.fast.js';
import { compileForLoop } from './compile-loop.fast.js';
import { compileCallBlock, compileMacro } from './compile-macro.fast.js';
import { compileSet } from './compile-set.fast.js';
import type { Render, StatementCompiler } from './compiled-closures.fast.js';
import { BREAK, CONTINUE } from './loop-control.fast.js';
import { outputText, truthy } from './template-values.fast.js';

/** A compiler of statement blocks; `hasLoopControl` says whether loops must catch `break`/`continue`. */
export function statementCompiler(hasLoopControl: boolean): StatementCompiler {
  const compile: StatementCompiler = {
    expression: compileExpression,
    block: (nodes) => compileBlock(nodes, compile),
    hasLoopControl,
  };
  return compile;
}

function compileBlock(nodes: AstNode[], compile: StatementCompiler): Render {
  const renders = nodes.map((node) => compileStatement(node, compile));
  if (renders.length === 0) return () => '';
  if (renders.length === 1) return renders[0] as Render;
  return (scope) => {
    let text = '';
    for (const render of renders) text += render(scope);
    return text;
  };
}

function compileStatement(node: AstNode, compile: StatementCompiler): Render {
  switch (node.type) {
    case 'StringLiteral': {
      const text = (node as LiteralNode<string>).value;
      return () => text;
    }
    case 'Comment':
      return () => '';
    case 'If':
      return compileIf(node as IfNode, compile);
    case 'For':
      return compileForLoop(node as ForNode, compile);
    case 'Set':
      return compileSet(node as SetNode, compile);
    case 'Macro':
      return compileMacro(node as MacroNode, compile);
    case 'CallStatement':
      return compileCallBlock(node as CallStatementNode, compile);
    case 'FilterStatement':
      return compileFilterBlock(node as FilterStatementNode, compile);
    case 'Break':
      return () => {
        throw BREAK;
      };
    case 'Continue':
      return () => {
        throw CONTINUE;
      };
    default: {
      const evaluate = compile.expression(node);
      return (scope) => outputText(evaluate(scope));
    }
  }
}

function compileIf({ test, body, alternate }: IfNode, compile: StatementCompiler): Render {
  const condition = compile.expression(test);
  const then = compile.block(body);
  const otherwise = compile.block(alternate);
  return (scope) => (truthy(condition(scope)) ? then(scope) : otherwise(scope));
}

function compileFilterBlock({ filter, body }: FilterStatementNode, compile: StatementCompiler): Render {
  const apply = compileFilter(filter, compile.expression);
  const render = compile.block(body);
  return (scope) => outputText(apply(render(scope), scope));
}
