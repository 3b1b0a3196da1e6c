// <cms-widget-last5-media>: Latest media. Fetches /api/dashboard/last5media and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-last5-media', endpoint: '/api/dashboard/last5media', title: 'Latest media' });
