// The strings of the worker screens' modules, in the page's language: Django's JavaScript catalog
// (/jsi18n/<language>/, a classic script templates/_js_catalog.html puts before the modules) defines
// globalThis.django.
// A string the catalog lacks stays in English, as written here; never an empty label.

const catalog = globalThis.django;

export const language = document.documentElement.lang || "en";

export function gettext(text) {
  return (catalog && catalog.gettext(text)) || text;
}

/** Marks a text for the catalog without translating it (translate it later with gettext). */
export function gettext_noop(text) {
  return text;
}

export function ngettext(singular, plural, count) {
  return (catalog && catalog.ngettext(singular, plural, count)) || (count === 1 ? singular : plural);
}

export function pgettext(context, text) {
  return (catalog && catalog.pgettext(context, text)) || text;
}

/** "%(name)s" placeholders filled from `values` (the catalog's own named style). */
export function format(text, values) {
  return text.replace(/%\((\w+)\)s/g, (whole, key) => (key in values ? String(values[key]) : whole));
}

// The modules' numbers are counts, written as the templates write whole numbers (Django's number
// formatting): Latin digits, not grouped. Left to the language, Intl would write 1,234 beside the
// pages' 1234, and in Arabic-Indic digits for ar-EG or fa (١٬٢٣٤).
const numbers = new Intl.NumberFormat(language, { numberingSystem: "latn", useGrouping: false });

/** A number written as the templates write it, in any language. */
export function formatNumber(value) {
  return numbers.format(value);
}

/** "No fact used", "1 fact used", "3 facts used": the note under a message of the fact-using roles. */
export function factsUsed(count) {
  if (count === 0) return gettext("No fact used");
  return format(ngettext("%(count)s fact used", "%(count)s facts used", count), { count: formatNumber(count) });
}
