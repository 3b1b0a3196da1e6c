import { mount } from 'svelte';
import './styles/base.css';
import './styles/layout.css';
import App from './App.svelte';
import { startRouter } from './lib/router.svelte';
import { startI18n } from './i18n/index.svelte';

startI18n();

startRouter();
mount(App, { target: document.getElementById('app')! });
