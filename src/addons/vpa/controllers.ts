// The VPA's recommender and updater on the controller runtime: each a periodic pass on the clock (upstream runs
// both as loops over every VPA, as the recommender samples every pod each round and keeps its histograms across them).
import { definePeriodic, type ControllerDef } from '../../controllers/runtime/index.js';
import { Recommender } from './recommender.js';
import type { VpaSettings } from './settings.js';
import { Updater } from './updater.js';

export function vpaControllers(settings: VpaSettings): ControllerDef[] {
  return [
    definePeriodic({
      name: 'vpa-recommender',
      periodMs: settings.recommenderIntervalMs,
      setup: ({ client, log, recorder }) => {
        const recommender = new Recommender(client, settings, recorder('vpa-recommender'), log);
        return () => recommender.runOnce();
      },
    }),
    definePeriodic({
      name: 'vpa-updater',
      periodMs: settings.updaterIntervalMs,
      setup: ({ client, log, recorder }) => {
        const updater = new Updater(client, settings, recorder('vpa-updater'), log);
        return () => updater.runOnce();
      },
    }),
  ];
}
