// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
/**
 * The shapes of @huggingface/jinja's AST nodes that the compiler reads (the package exports `parse`
 * but not its node classes' types). Every node has a `type` discriminant.
 */
export interface AstNode {
  type: string;
}
export interface TokenNode {
  value: string;
}
export interface ProgramNode extends AstNode {
  body: AstNode[];
}
export interface IfNode extends AstNode {
  test: AstNode;
  body: AstNode[];
  alternate: AstNode[];
}
export interface ForNode extends AstNode {
  loopvar: AstNode;
  iterable: AstNode;
  body: AstNode[];
  defaultBlock: AstNode[];
}
export interface SetNode extends AstNode {
  assignee: AstNode;
  value: AstNode | null;
  body: AstNode[];
}
export interface MacroNode extends AstNode {
  name: IdentifierNode;
  args: AstNode[];
  body: AstNode[];
}
export interface CallStatementNode extends AstNode {
  call: CallExpressionNode;
  callerArgs: AstNode[] | null;
  body: AstNode[];
}
export interface FilterStatementNode extends AstNode {
  filter: AstNode;
  body: AstNode[];
}
export interface IdentifierNode extends AstNode {
  value: string;
}
export interface LiteralNode<T> extends AstNode {
  value: T;
}
export interface MemberExpressionNode extends AstNode {
  object: AstNode;
  property: AstNode;
  computed: boolean;
}
export interface CallExpressionNode extends AstNode {
  callee: AstNode;
  args: AstNode[];
}
export interface BinaryExpressionNode extends AstNode {
  operator: TokenNode;
  left: AstNode;
  right: AstNode;
}
export interface UnaryExpressionNode extends AstNode {
  operator: TokenNode;
  argument: AstNode;
}
export interface FilterExpressionNode extends AstNode {
  operand: AstNode;
  filter: AstNode;
}
export interface TestExpressionNode extends AstNode {
  operand: AstNode;
  negate: boolean;
  test: IdentifierNode;
}
export interface SelectExpressionNode extends AstNode {
  lhs: AstNode;
  test: AstNode;
}
export interface TernaryNode extends AstNode {
  condition: AstNode;
  trueExpr: AstNode;
  falseExpr: AstNode;
}
export interface SliceExpressionNode extends AstNode {
  start: AstNode | undefined;
  stop: AstNode | undefined;
  step: AstNode | undefined;
}
export interface KeywordArgumentNode extends AstNode {
  key: IdentifierNode;
  value: AstNode;
}
export interface SpreadNode extends AstNode {
  argument: AstNode;
}
