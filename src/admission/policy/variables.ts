// The CEL variables a ValidatingAdmissionPolicy's expressions may use.

/** `params` only with a paramKind, `variables` only when the policy declares some. */
export function policyVariables(hasParams: boolean, hasVariables: boolean): string[] {
  const vars = ['object', 'oldObject', 'request', 'namespaceObject', 'authorizer'];
  if (hasParams) vars.push('params');
  if (hasVariables) vars.push('variables');
  return vars;
}
