import { startup } from '/work/main/dist/bench/figures.js';
import { cleanup } from '/work/main/dist/bench/proc.js';
const st = await startup(5); const med = (a) => a.slice().sort((x, y) => x - y)[2];
console.log('memory', st.memory.map((x) => x.toFixed(0)).join(' '), 'dir', st.dir.map((x) => x.toFixed(0)).join(' '), 'baseline', st.baseline.map((x) => x.toFixed(0)).join(' '), 'med', med(st.memory).toFixed(0), med(st.dir).toFixed(0), med(st.baseline).toFixed(0));
await cleanup(); process.exit(0);
