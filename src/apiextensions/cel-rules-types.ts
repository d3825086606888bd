// Shapes shared by the compile and validate halves of CRD validation rules.
import type { Program } from '../cel/engine.js';
import type { SchemaView } from '../cel/schema-view.js';

export interface RuleSpec {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface CompiledRule {
  spec: RuleSpec;
  program?: Program;
  messageProgram?: Program;
  /** The rule reads oldSelf: a transition rule. */
  transition: boolean;
  /** fieldPath as path segments appended to the node's path (`.a['b']` → `.a.b`). */
  fieldPath: string;
}

export interface RuleNode {
  view: SchemaView;
  rules: CompiledRule[];
  properties?: Map<string, RuleNode>;
  additionalProperties?: RuleNode;
  items?: RuleNode;
}

/** The compiled rules of one schema, reused for every object validated against it. */
export interface CompiledRules {
  root: RuleNode | undefined;
  ruleCount: number;
}
