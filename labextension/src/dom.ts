// The two element builders every part of the sidebar uses: plain DOM, so that
// a part can be put in any container (the sidebar, a notebook's output); and
// the count-and-noun its texts are made of.

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  text = ''
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text) e.textContent = text;
  return e;
}

/** A form field: its label above the input, and an optional hint below. */
export function labelled(
  label: string,
  input: HTMLElement,
  hint = ''
): HTMLLabelElement {
  const l = el('label', 'tp-field');
  l.append(el('span', 'tp-field-label', label), input);
  if (hint) l.append(el('span', 'tp-field-hint', hint));
  return l;
}

/** "1 worker", "3 workers": `what` with an s unless there is one. */
export function plural(n: number, what: string): string {
  return `${n} ${n === 1 ? what : `${what}s`}`;
}
