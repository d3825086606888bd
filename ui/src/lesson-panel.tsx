// The lesson beside the map: the newest ConfigMap labelled bonsai.dev/lesson-progress=true (any namespace), whose
// data key progress.json the lesson runner rewrites as the learner goes: steps with done ones checked, the current
// step's instructions and hint. Kept current by a watch.
import { useState } from 'preact/hooks';
import { useWatched } from './collections.js';
import { arr, rec, str, type Obj } from './model.js';

const path = `/api/v1/configmaps?labelSelector=${encodeURIComponent('bonsai.dev/lesson-progress=true')}`;

export interface LessonStep {
  heading: string;
  instructions: string[];
  hint: string;
  state: 'done' | 'current' | 'pending';
  detail: string;
}

export interface LessonProgress {
  lesson: string;
  title: string;
  steps: LessonStep[];
  finished: boolean;
  /** Where it was read from: `<ns>/<configmap>`. */
  source: string;
}

/** progress.json narrowed; undefined when it is not a lesson's progress. */
export function parseProgress(o: Obj): LessonProgress | undefined {
  let body: unknown;
  try {
    body = JSON.parse(str(rec(o.data)['progress.json']));
  } catch {
    return undefined;
  }
  const b = rec(body);
  if (!Array.isArray(b.steps)) return undefined;
  const steps = arr(b.steps).map(rec).map((s): LessonStep => ({
    heading: str(s.heading), instructions: arr(s.instructions).map(str).filter(Boolean), hint: str(s.hint),
    state: s.state === 'done' || s.state === 'current' ? s.state : 'pending', detail: str(s.detail),
  }));
  const m = rec(o.metadata);
  return { lesson: str(b.lesson), title: str(b.title) || str(b.lesson), steps, finished: b.finished === true, source: `${str(m.namespace)}/${str(m.name)}` };
}

const rv = (o: Obj) => Number(str(rec(o.metadata).resourceVersion)) || 0;

/** The most recently written progress, or undefined. */
function newest(items: Iterable<Obj>): LessonProgress | undefined {
  let best: Obj | undefined;
  for (const o of items) if (!best || rv(o) > rv(best)) best = o;
  return best ? parseProgress(best) : undefined;
}

export function LessonPanel() {
  const progress = newest(useWatched(path, 50, undefined, true).items.values());
  const [open, setOpen] = useState(true);
  const [hintFor, setHintFor] = useState(-1);
  if (!progress) return null;
  if (!open) return <button class="lesson-open" data-action="lesson-open" title="Show the lesson's steps" onClick={() => setOpen(true)}>Lesson ▸</button>;
  const done = progress.steps.filter((s) => s.state === 'done').length;
  return (
    <section class="lesson" data-lesson={progress.lesson} data-finished={String(progress.finished)}>
      <button class="close" title="Hide the lesson panel" onClick={() => setOpen(false)}>×</button>
      <h3>{progress.title}</h3>
      <p class="muted">{progress.finished ? 'Finished: well done!' : `${done} of ${progress.steps.length} steps done`} · <span title="The ConfigMap the lesson writes">{progress.source}</span></p>
      <ol class="lesson-steps">
        {progress.steps.map((s, i) => (
          <li class={`step ${s.state}`} data-step={i} data-state={s.state}>
            <span class="step-mark" aria-label={s.state}>{s.state === 'done' ? '✓' : s.state === 'current' ? '▶' : '○'}</span> <b>{s.heading}</b>
            {s.state === 'current' ? (
              <div class="step-body">
                {s.instructions.map((t) => (/^(kubectl|bonsai|curl) /.test(t) ? <pre class="cmd">{t}</pre> : <p>{t}</p>))}
                {s.detail ? <p class="step-detail">{s.detail}</p> : null}
                {s.hint ? (hintFor === i ? <p class="hint">Hint: {s.hint}</p> : <button data-action="hint" onClick={() => setHintFor(i)}>Show hint</button>) : null}
              </div>
            ) : s.detail ? <div class="step-detail muted">{s.detail}</div> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
