// Small SVG helpers shared by the maps.
export const SVG_NS = 'http://www.w3.org/2000/svg';

export function el(name, attributes = {}, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** True for a point with finite coordinates (a stop given as an address that was not placed has none). */
export const valid = (p) => p && Number.isFinite(p.latitude) && Number.isFinite(p.longitude);
