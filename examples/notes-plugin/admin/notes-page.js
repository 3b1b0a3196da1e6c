// The admin page of the notes plugin: a plain ES module the admin UI imports and mounts (see "Admin pages").
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

export function mount(element, ctx) {
  const list = el('ul', { 'data-testid': 'notes-list' });
  const input = el('input', { id: 'note-text', name: 'text', maxlength: '500', autocomplete: 'off' });
  const status = el('p', { role: 'status', 'aria-live': 'polite', class: 'muted' });
  const form = el(
    'form',
    {},
    el('label', { for: 'note-text' }, 'New note'),
    ' ',
    input,
    ' ',
    el('button', { type: 'submit', class: 'btn' }, 'Add note'),
  );
  element.append(el('div', { class: 'card' }, form, status, list));
  let alive = true;

  const render = (notes) => {
    if (!alive) return;
    list.replaceChildren(
      ...(notes.length
        ? notes.map((n) => {
            const remove = el('button', { type: 'button', class: 'btn', 'aria-label': `Delete note ${n.text}` }, 'Delete');
            remove.addEventListener('click', () =>
              ctx.api.del(`/api/notes/${n.id}`).then(load, (err) => (status.textContent = err.message)),
            );
            return el('li', {}, n.text, ' ', remove);
          })
        : [el('li', { class: 'muted' }, 'No notes yet')]),
    );
  };
  const load = () =>
    ctx.api.get('/api/notes').then(
      (d) => render(d.notes),
      (err) => alive && (status.textContent = `Could not load your notes: ${err.message}`),
    );

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.textContent = '';
    try {
      await ctx.api.post('/api/notes', { text: input.value });
      input.value = '';
      status.textContent = 'Saved.';
      await load();
    } catch (err) {
      if (alive) status.textContent = err.message;
    }
  });
  void load();
  return () => {
    alive = false;
  };
}
