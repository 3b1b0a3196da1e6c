/** Widgets that get a chart (WidgetChart.svelte) above their figures. */
export const CHART_WIDGETS = new Set(['cache-monitor', 'media-storage-analytics', 'unified-metrics', 'commerce-orders']);
