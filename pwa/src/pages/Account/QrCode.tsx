// A QR code drawn as SVG from uqr's module matrix: no HTML string goes into the page.

import { encode } from "uqr";

export function QrCode({ text, label, size = 220 }: { text: string; label: string; size?: number }) {
  const qr = encode(text, { border: 2, ecc: "M" });
  const n = qr.data.length;
  let path = "";
  qr.data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`;
    })
  );
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${n} ${n}`}
      width={size}
      height={size}
      shapeRendering="crispEdges"
      style={{ background: "#fff", borderRadius: 4 }}
    >
      <path d={path} fill="#000" />
    </svg>
  );
}
