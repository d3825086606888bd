// Module resolution hook (see register.mjs): `node:test` resolves to the timeout-adding wrapper, except for
// the wrapper's own import of the real module.
const wrapper = new URL('./node-test.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier === 'node:test' && context.parentURL && context.parentURL !== wrapper && !context.parentURL.startsWith('node:')) {
    return { url: wrapper, shortCircuit: true };
  }
  return next(specifier, context);
}
