// Headers for file downloads, shared by every area that sends files (saves, mods, mod packs).

/**
 * Content-Disposition for any file name: a plain ASCII fallback for old clients, and the exact UTF-8 name
 * in filename* (RFC 6266 / RFC 8187) for everything since.
 */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (ch) => "%" + ch.charCodeAt(0).toString(16).toUpperCase(),
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
