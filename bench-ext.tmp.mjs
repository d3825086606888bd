import { crdApplyFigure, customResourceCreates } from '/work/main/dist/bench/extensions.js';
import { cleanup } from '/work/main/dist/bench/proc.js';
const ca = await crdApplyFigure(); console.log('apply', ca.ms.toFixed(0));
const cr = await customResourceCreates(1000, 3000); console.log('cm', cr.configMaps.perSec.toFixed(0), 'cr', cr.custom.perSec.toFixed(0), (cr.custom.perSec / cr.configMaps.perSec * 100).toFixed(0) + '%');
await cleanup(); process.exit(0);
