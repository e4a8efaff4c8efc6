// Vega-Lite spec -> SVG text, headless: vega-lite compiles the spec to Vega, and Vega's View renders it with no
// canvas or browser (renderer 'none' skips drawing to a surface; toSVG produces the markup).
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** One view of a concatenated chart (a unit, a layer or a concatenation), as TopLevelSpec's hconcat holds them. */
export type ChartPanel = Extract<TopLevelSpec, { hconcat: unknown }>['hconcat'][number];

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
