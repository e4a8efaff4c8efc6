// A tiny XML writer for responses. EC2 lists must wrap each entry in <item> (without it the SDK silently
// parses an empty list); ELB lists use <member>.

export class Xml {
  constructor(readonly text: string) {}
}

export type XmlChild = Xml | string | number | boolean | Date | undefined | null | readonly XmlChild[];

export function escapeXml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string,
  );
}

function render(c: XmlChild): string {
  if (c === undefined || c === null) return '';
  if (c instanceof Xml) return c.text;
  if (c instanceof Date) return c.toISOString();
  if (typeof c === 'string') return escapeXml(c);
  if (typeof c === 'number' || typeof c === 'boolean') return String(c);
  return c.map(render).join('');
}

/** The XML text of children (escaped text, nested elements), without a wrapping element. */
export function renderXml(...children: XmlChild[]): string {
  return children.map(render).join('');
}

/** <name>children</name>; always emitted, even when empty. */
export function el(name: string, ...children: XmlChild[]): Xml {
  const body = renderXml(...children);
  return new Xml(body === '' ? `<${name}/>` : `<${name}>${body}</${name}>`);
}

/** Like el, but emits nothing when the value is undefined or null. */
export function opt(name: string, value: XmlChild): Xml | undefined {
  return value === undefined || value === null ? undefined : el(name, value);
}

/** <name><item>..</item>...</name> (EC2 list). */
export function itemList<T>(name: string, values: readonly T[], each: (v: T) => XmlChild): Xml {
  return el(
    name,
    values.map((v) => el('item', each(v))),
  );
}

/** <name><member>..</member>...</name> (ELB list). */
export function memberList<T>(name: string, values: readonly T[], each: (v: T) => XmlChild): Xml {
  return el(
    name,
    values.map((v) => el('member', each(v))),
  );
}

export function tagSet(tags: readonly { key: string; value: string }[]): Xml {
  return itemList('tagSet', tags, (t) => [el('key', t.key), el('value', t.value)]);
}
