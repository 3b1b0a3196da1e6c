import { mount } from 'svelte';
import './styles/base.css';
import './styles/layout.css';
import App from './App.svelte';
import { startRouter } from './lib/router.svelte';

startRouter();
mount(App, { target: document.getElementById('app')! });
