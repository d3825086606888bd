// What the dashboard shows of a running lesson: ConfigMap `lesson-progress` in the lesson's namespace (label
// `bonsai.dev/lesson-progress: "true"`), data key `progress.json` holding the steps with their state. Written only
// when something changed; a failed write never stops the lesson.
import type { Json, LessonApi } from './lesson-api.js';
import { lessonLabel, lessonNamespace, ownedBy } from './lesson-namespace.js';
import type { Lesson } from './lesson-types.js';

export const progressConfigMap = 'lesson-progress';
export const progressLabel = 'bonsai.dev/lesson-progress';
export const progressKey = 'progress.json';

export interface StepProgress {
  /** The step's heading; a step continuing the one before has the ✓ text instead. */
  heading: string;
  /** Known once the step has started. */
  instructions: string[];
  hint: string;
  /** Whether the hint has been printed. */
  hinted: boolean;
  state: 'done' | 'current' | 'pending';
  /** The ✓ detail once done; where things stand while current. */
  detail?: string;
}

export interface LessonProgressDoc {
  lesson: string;
  title: string;
  steps: StepProgress[];
  finished: boolean;
}

export class LessonProgress {
  readonly doc: LessonProgressDoc;
  private written = '';
  /** Set once the ConfigMap turned out to be someone else's: no more writes. */
  private refused = false;

  constructor(private readonly api: LessonApi, lesson: Lesson) {
    this.doc = {
      lesson: lesson.name, title: lesson.title, finished: false,
      steps: lesson.steps.map((s) => ({ heading: s.heading ?? s.ok, instructions: [], hint: s.hint, hinted: false, state: 'pending' })),
    };
  }

  started(i: number, instructions: string[]): Promise<void> {
    Object.assign(this.doc.steps[i], { state: 'current', instructions, detail: undefined });
    return this.write();
  }
  progress(i: number, detail: string): Promise<void> {
    this.doc.steps[i].detail = detail;
    return this.write();
  }
  hinted(i: number): Promise<void> {
    this.doc.steps[i].hinted = true;
    return this.write();
  }
  done(i: number, detail: string | undefined): Promise<void> {
    Object.assign(this.doc.steps[i], { state: 'done', detail });
    return this.write();
  }
  finished(): Promise<void> {
    this.doc.finished = true;
    return this.write();
  }

  /** Creates or updates the ConfigMap when the document changed. */
  private async write(): Promise<void> {
    const text = JSON.stringify(this.doc);
    if (text === this.written || this.refused) return;
    const ns = lessonNamespace(this.doc.lesson);
    const path = `/api/v1/namespaces/${ns}/configmaps/${progressConfigMap}`;
    try {
      const existing = await this.api.get(path);
      if (existing && !ownedBy(existing, this.doc.lesson)) {
        this.refused = true;
        return;
      }
      if (existing) await this.api.patch(path, { data: { [progressKey]: text } });
      else await this.api.create(`/api/v1/namespaces/${ns}/configmaps`, configMap(ns, this.doc.lesson, text));
      this.written = text;
    } catch {
      // The next change tries again.
    }
  }
}

function configMap(ns: string, lesson: string, text: string): Json {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: progressConfigMap, namespace: ns, labels: { [progressLabel]: 'true', [lessonLabel]: lesson } },
    data: { [progressKey]: text },
  };
}
