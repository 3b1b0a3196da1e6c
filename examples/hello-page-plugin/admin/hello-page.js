// The admin page of the hello-page plugin: a plain ES module, no build step. The admin UI imports it
// from /admin/plugin-pages/hello-page/admin/hello-page.js and calls mount(element, ctx):
//   ctx.params   the path's :parameters
//   ctx.api      the app's API client: get(path), post(path, body), put, patch, del (session cookie;
//                resolves to `data`, throws an error with `status`, `code` and `message`)
//   ctx.navigate(path), ctx.user (the signed-in user), ctx.can(permission)
// It returns a cleanup function, called when the user leaves the page.

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

export function mount(element, ctx) {
  const message = el('p', { 'data-testid': 'hello-message' }, 'Loading…');
  const list = el('ul', { 'data-testid': 'hello-visitors' });
  const input = el('input', { id: 'hello-name', name: 'name', maxlength: '60', autocomplete: 'off' });
  const status = el('p', { role: 'status', 'aria-live': 'polite', class: 'muted' });
  const form = el(
    'form',
    {},
    el('label', { for: 'hello-name' }, 'Your name'),
    ' ',
    input,
    ' ',
    el('button', { type: 'submit', class: 'btn' }, 'Sign the guest book'),
  );
  element.append(
    el(
      'div',
      { class: 'card' },
      el('p', { class: 'muted' }, `Signed in as ${ctx.user?.username ?? 'someone'}.`),
      message,
      form,
      status,
      el('h2', {}, 'Guest book'),
      list,
    ),
  );

  let alive = true;
  const show = (data) => {
    if (!alive) return;
    message.textContent = data.message;
    list.replaceChildren(
      ...(data.visitors.length ? data.visitors.map((v) => el('li', {}, v)) : [el('li', { class: 'muted' }, 'Nobody yet')]),
    );
  };

  ctx.api.get('/api/hello-page/greeting').then(show, (err) => {
    if (alive) message.textContent = `Could not load the greeting: ${err.message}`;
  });

  const onSubmit = async (event) => {
    event.preventDefault();
    status.textContent = '';
    try {
      show(await ctx.api.post('/api/hello-page/greeting', { name: input.value }));
      input.value = '';
      status.textContent = 'Signed.';
    } catch (err) {
      if (alive) status.textContent = err.message;
    }
  };
  form.addEventListener('submit', onSubmit);

  return () => {
    alive = false;
    form.removeEventListener('submit', onSubmit);
  };
}
