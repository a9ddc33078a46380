// The project's own card deck, drawn as SVG here (nothing is downloaded): French suits
// (clubs, spades, hearts, diamonds) or German suits (acorns, leaves, hearts, bells).
// cardSVG("CJ", "french") -> an <svg> string; card names are the project's notation (suit C S H D
// + rank 2..9 T J Q K A), so the same deck draws Skat's 32 and Thirty-One's 52 cards.
"use strict";

const SUIT_SHAPES = {
  french: {
    C: { color: "#1b1b1b", svg: '<circle cx="50" cy="30" r="19"/><circle cx="28" cy="58" r="19"/>' +
         '<circle cx="72" cy="58" r="19"/><path d="M46 50 L38 95 L62 95 L54 50 Z"/>' },
    S: { color: "#1b1b1b", svg: '<path d="M50 4 C 80 34 100 52 88 72 C 78 86 60 82 54 72 L 62 96 L 38 96 ' +
         'L 46 72 C 40 82 22 86 12 72 C 0 52 20 34 50 4 Z"/>' },
    H: { color: "#c8102e", svg: '<path d="M50 94 C 18 66 2 48 8 28 C 14 8 40 6 50 26 C 60 6 86 8 92 28 ' +
         'C 98 48 82 66 50 94 Z"/>' },
    D: { color: "#c8102e", svg: '<path d="M50 2 L88 50 L50 98 L12 50 Z"/>' },
  },
  german: {  // Eichel, Grün (Laub), Herz, Schellen
    C: { color: "#7a4a12", svg: '<path d="M47 6 h6 v14 h-6 Z"/><path d="M18 44 Q50 10 82 44 Z" fill="#5a3308"/>' +
         '<path d="M22 44 Q50 50 78 44 Q80 88 50 96 Q20 88 22 44 Z" fill="#c99a2e"/>' +
         '<path d="M24 44 Q50 36 76 44" stroke="#5a3308" stroke-width="4" fill="none"/>' },
    S: { color: "#2f7d32", svg: '<path d="M50 98 C 16 74 8 42 50 2 C 92 42 84 74 50 98 Z"/>' +
         '<path d="M50 96 L50 12 M50 40 L32 28 M50 40 L68 28 M50 62 L28 48 M50 62 L72 48" ' +
         'stroke="#cfe8c9" stroke-width="3" fill="none"/>' },
    H: { color: "#c8102e", svg: '<path d="M50 94 C 18 66 2 48 8 28 C 14 8 40 6 50 26 C 60 6 86 8 92 28 ' +
         'C 98 48 82 66 50 94 Z"/>' },
    D: { color: "#d98c00", svg: '<circle cx="50" cy="52" r="38"/><path d="M14 46 H86 V58 H14 Z" fill="#8a5a00"/>' +
         '<circle cx="50" cy="74" r="7" fill="#5a3a00"/><path d="M44 10 h12 v8 h-12 Z" fill="#8a5a00"/>' },
  },
};

const RANK_TEXT = {
  french: { T: "10", J: "J", Q: "Q", K: "K", A: "A" },
  german: { T: "10", J: "U", Q: "O", K: "K", A: "A" },
};

// Pip centres (card box 0..60 x 0..90) for the number cards.
const PIPS = {
  2: [[30, 22], [30, 68]],
  3: [[30, 20], [30, 45], [30, 70]],
  4: [[20, 22], [40, 22], [20, 68], [40, 68]],
  5: [[20, 22], [40, 22], [30, 45], [20, 68], [40, 68]],
  6: [[20, 22], [40, 22], [20, 45], [40, 45], [20, 68], [40, 68]],
  7: [[20, 20], [40, 20], [30, 32], [20, 45], [40, 45], [20, 70], [40, 70]],
  8: [[20, 20], [40, 20], [30, 32], [20, 45], [40, 45], [30, 58], [20, 70], [40, 70]],
  9: [[20, 19], [40, 19], [20, 36], [40, 36], [30, 45], [20, 54], [40, 54], [20, 71], [40, 71]],
  10: [[20, 19], [40, 19], [30, 27], [20, 36], [40, 36], [20, 54], [40, 54], [30, 63], [20, 71], [40, 71]],
};

function suitGlyph(suit, style, x, y, size) {
  const s = SUIT_SHAPES[style][suit];
  const k = size / 100;
  return `<g transform="translate(${x - size / 2} ${y - size / 2}) scale(${k})" fill="${s.color}">${s.svg}</g>`;
}

function rankText(rank, style) {
  return RANK_TEXT[style][rank] || rank;
}

function cardSVG(name, style) {
  style = SUIT_SHAPES[style] ? style : "french";
  const suit = name[0], rank = name[1];
  const color = SUIT_SHAPES[style][suit].color;
  const label = rankText(rank, style);
  let body = "";
  if ("23456789T".includes(rank)) {
    const n = rank === "T" ? 10 : Number(rank);
    body = PIPS[n].map(([x, y]) => suitGlyph(suit, style, x, y, n >= 9 ? 11 : 13)).join("");
  } else if (rank === "A") {
    body = suitGlyph(suit, style, 30, 46, 34);
  } else {  // a court card: a framed panel with its letter and suit
    body = `<rect x="12" y="14" width="36" height="62" rx="3" fill="#f4ecd0" stroke="${color}" stroke-width="1.2"/>` +
      (rank === "K" ? `<path d="M19 27 L23 19 L27 25 L30 17 L33 25 L37 19 L41 27 Z" fill="#d4a017" stroke="#8a6a00" stroke-width=".6"/>` : "") +
      (rank === "Q" ? `<circle cx="30" cy="22" r="4" fill="#d4a017" stroke="#8a6a00" stroke-width=".6"/>` : "") +
      (rank === "J" ? `<path d="M22 24 h16 v-4 h-16 Z" fill="#4a6fa5"/>` : "") +
      `<text x="30" y="52" text-anchor="middle" font-size="22" font-weight="700" fill="${color}" ` +
      `font-family="Georgia, serif">${label}</text>` + suitGlyph(suit, style, 30, 65, 13);
  }
  const corner = (x, y, rot) =>
    `<g transform="rotate(${rot} 30 45)"><text x="${x}" y="${y}" text-anchor="middle" font-size="${label.length > 1 ? 9 : 10.5}" ` +
    `font-weight="700" fill="${color}" font-family="Helvetica, Arial, sans-serif">${label}</text>` +
    suitGlyph(suit, style, x, y + 7, 7.5) + `</g>`;
  return `<svg class="card-svg" viewBox="0 0 60 90" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${name}">` +
    `<rect x="0.5" y="0.5" width="59" height="89" rx="5" fill="#fff" stroke="#888"/>` +
    corner(7, 11, 0) + corner(7, 11, 180) + body + `</svg>`;
}

function cardBackSVG() {
  return `<svg class="card-svg" viewBox="0 0 60 90" xmlns="http://www.w3.org/2000/svg" aria-hidden="true">` +
    `<defs><pattern id="bk" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    `<rect width="6" height="6" fill="#24508f"/><rect width="3" height="6" fill="#2f63ad"/></pattern></defs>` +
    `<rect x="0.5" y="0.5" width="59" height="89" rx="5" fill="#fff" stroke="#888"/>` +
    `<rect x="4" y="4" width="52" height="82" rx="3" fill="url(#bk)"/></svg>`;
}
