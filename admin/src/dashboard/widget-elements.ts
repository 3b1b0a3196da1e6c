// The widgets' entry components live in their folders (widgets/<id>/component.js) and are bundled from
// there: importing each module defines its custom element <cms-widget-<id>>. A widget added by a plugin
// without a component in this build gets the generic element (same fetch-and-render behaviour).
// A plain JavaScript module shared with the widget folders (typed from its source: allowJs in admin/tsconfig.json).
import { defineWidget } from '../../../widgets/widget-element.js';

const modules = import.meta.glob('../../../widgets/*/component.js', { eager: true });

/** Widget ids whose component came from their folder. */
export const bundledWidgetIds = new Set(Object.keys(modules).map((p) => p.split('/').at(-2)!));

export function widgetTag(id: string): string {
  return `cms-widget-${id}`;
}

/** Makes sure the widget's custom element exists (bundled or generic) and returns its tag. */
export function ensureWidgetElement(widget: { id: string; name: string; endpoint: string }): string {
  const tag = widgetTag(widget.id);
  if (!customElements.get(tag)) defineWidget({ tag, endpoint: widget.endpoint, title: widget.name });
  return tag;
}
