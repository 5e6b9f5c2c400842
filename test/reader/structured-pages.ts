/**
 * Hand-written pages for the content choice tests (structured-content.test.ts): a German recipe blog
 * whose recipe card sits in a sidebar and lives in its JSON-LD, a German FAQ in microdata, a shop
 * page drawn by script with its product in JSON-LD, and a German blog post among the furniture
 * sites put around posts in any language (share bar, related posts, newsletter box, cookie banner).
 */
const STORY = [
  'Als ich zum ersten Mal in der kleinen Bäckerei meiner Großmutter stand, roch es nach Hefe, nach warmem Holz und nach etwas, das ich erst viele Jahre später als Kümmel erkannte.',
  'Dieses Brot backe ich seit zwanzig Jahren jeden Samstag, und jedes Mal wird es ein wenig anders, je nachdem, wie warm die Küche ist und wie lange der Teig ruhen darf.',
  'Wichtig ist vor allem Geduld: Ein Roggenbrot, das zu früh in den Ofen kommt, bleibt innen klebrig und reißt an der Oberfläche unschön auf.',
  'Wer keinen Sauerteig hat, kann ihn in fünf Tagen selbst ansetzen; das Rezept dafür steht in einem eigenen Beitrag, den ich im Herbst geschrieben habe.',
];

export const RECIPE_INGREDIENTS = [
  '500 g Roggenmehl Type 1150',
  '350 ml lauwarmes Wasser',
  '150 g Sauerteig',
  '12 g Salz',
  '1 TL Kümmel',
];
export const RECIPE_STEPS = [
  'Mehl, Wasser und Sauerteig in einer Schüssel verrühren.',
  'Salz und Kümmel zugeben und den Teig zehn Minuten kneten.',
  'Den Teig abgedeckt drei Stunden an einem warmen Ort gehen lassen.',
  'Bei 250 Grad zehn Minuten anbacken, dann bei 200 Grad weitere 45 Minuten backen.',
];

export const RECIPE_PAGE = `<!doctype html><html lang="de"><head><meta charset="utf-8">
<title>Omas Roggenbrot mit Kümmel – Backstube Lindner</title>
<meta property="og:site_name" content="Backstube Lindner">
<script type="application/ld+json">${JSON.stringify({
  '@context': 'https://schema.org',
  '@graph': [
    { '@type': 'WebSite', name: 'Backstube Lindner' },
    {
      '@type': 'Recipe',
      name: 'Omas Roggenbrot mit Kümmel',
      description: 'Ein kräftiges Roggenbrot mit Sauerteig und Kümmel, wie es meine Großmutter gebacken hat.',
      recipeYield: '1 Laib',
      totalTime: 'PT4H10M',
      recipeIngredient: RECIPE_INGREDIENTS,
      recipeInstructions: RECIPE_STEPS.map((text) => ({ '@type': 'HowToStep', text })),
    },
  ],
})}</script></head>
<body><header class="site-header"><a href="/">Backstube Lindner</a><nav><a href="/brot">Brot</a> <a href="/kuchen">Kuchen</a></nav></header>
<main><article><h1>Omas Roggenbrot mit Kümmel</h1>
${STORY.map((p) => `<p>${p}</p>`).join('\n')}
</article>
<aside class="rezeptkarte"><h2>Rezept</h2><ul>${RECIPE_INGREDIENTS.map((i) => `<li>${i}</li>`).join('')}</ul>
<ol>${RECIPE_STEPS.map((s) => `<li>${s}</li>`).join('')}</ol></aside></main>
<footer>© Backstube Lindner</footer></body></html>`;

export const RECIPE_STORY = STORY;

export const FAQ_ANSWERS = [
  'Die Rücksendung ist innerhalb von 30 Tagen nach Erhalt der Ware kostenlos möglich; legen Sie einfach den beiliegenden Rücksendeschein bei.',
  'Wir liefern nach Deutschland, Österreich und in die Schweiz; die Lieferzeit beträgt in der Regel zwei bis vier Werktage.',
  'Sie können per Rechnung, Lastschrift, Kreditkarte oder PayPal bezahlen; bei Rechnungskauf haben Sie 14 Tage Zeit.',
];

export const FAQ_PAGE = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Häufige Fragen – Wollhaus</title></head>
<body><nav><a href="/">Start</a> <a href="/shop">Shop</a> <a href="/hilfe">Hilfe</a></nav>
<div itemscope itemtype="https://schema.org/FAQPage">
<h1>Häufige Fragen</h1>
${['Wie kann ich eine Bestellung zurücksenden?', 'Wohin liefern Sie?', 'Wie kann ich bezahlen?']
  .map(
    (q, i) => `<div itemscope itemprop="mainEntity" itemtype="https://schema.org/Question">
<button class="faq-toggle" itemprop="name">${q}</button>
<div itemscope itemprop="acceptedAnswer" itemtype="https://schema.org/Answer" hidden><div itemprop="text">${FAQ_ANSWERS[i]}</div></div></div>`,
  )
  .join('\n')}
</div><footer><a href="/impressum">Impressum</a> <a href="/datenschutz">Datenschutz</a></footer></body></html>`;

export const PRODUCT_DESCRIPTION =
  'Handgewebter Teppich aus reiner Schurwolle, 160 × 230 cm, in Naturtönen gefärbt und in einer kleinen Manufaktur im Allgäu gefertigt.';

export const PRODUCT_PAGE = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Teppich Alpsee – Wollhaus</title>
<script type="application/ld+json">${JSON.stringify({
  '@context': 'https://schema.org/',
  '@type': 'Product',
  name: 'Teppich Alpsee',
  description: PRODUCT_DESCRIPTION,
  brand: { '@type': 'Brand', name: 'Wollhaus' },
  offers: {
    '@type': 'Offer',
    price: '489.00',
    priceCurrency: 'EUR',
    availability: 'https://schema.org/InStock',
  },
})}</script></head>
<body><nav><a href="/">Start</a> <a href="/teppiche">Teppiche</a> <a href="/kissen">Kissen</a> <a href="/decken">Decken</a></nav>
<div id="app"><h1>Teppich Alpsee</h1><div class="spinner">Wird geladen …</div></div>
<script>window.__STATE__ = {"product": "drawn by script"};</script></body></html>`;

export const BLOG_TEXT = [
  'Der Stadtrat hat am Dienstag beschlossen, die alte Markthalle nicht abzureißen, sondern bis 2028 zu sanieren und als überdachten Wochenmarkt wieder zu öffnen.',
  'Die Sanierung soll rund 14 Millionen Euro kosten; ein Drittel davon übernimmt das Land aus dem Programm für lebendige Innenstädte.',
  'Händlerinnen und Händler, die bisher auf dem Parkplatz hinter dem Rathaus stehen, sollen während der Bauzeit auf den Lindenplatz ausweichen.',
  'Die Bürgerinitiative, die seit drei Jahren für den Erhalt der Halle kämpft, zeigte sich nach der Abstimmung erleichtert und kündigte ein Fest zur Wiedereröffnung an.',
];

export const BLOG_PAGE = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Markthalle wird saniert – Stadtblog Nord</title></head>
<body>
<div class="hinweis-leiste"><p>Wir verwenden Cookies, um Ihnen das beste Erlebnis auf unserer Website zu bieten. Mit einem Klick auf „Alle akzeptieren“ stimmen Sie zu.</p><button>Alle akzeptieren</button><button>Nur notwendige</button></div>
<main><article><h1>Markthalle wird saniert</h1>
<p>${BLOG_TEXT[0]}</p><p>${BLOG_TEXT[1]}</p>
<div class="teilen-leiste"><span>Diesen Beitrag teilen</span><ul><li><a href="https://facebook.example/share">Facebook</a></li><li><a href="https://x.example/share">X</a></li><li><a href="mailto:?subject=Markthalle">E-Mail</a></li></ul></div>
<p>${BLOG_TEXT[2]}</p><p>${BLOG_TEXT[3]}</p>
<div class="kasten"><h3>Bleiben Sie informiert</h3><p>Jeden Freitag die wichtigsten Nachrichten aus dem Viertel in Ihrem Postfach.</p><input type="email" placeholder="Ihre E-Mail-Adresse"><button>Anmelden</button></div>
<div class="weiterlesen"><h2>Das könnte Sie auch interessieren</h2><ul><li><a href="/radweg">Neuer Radweg am Kanal</a></li><li><a href="/schule">Grundschule bekommt Mensa</a></li><li><a href="/bad">Freibad öffnet früher</a></li></ul></div>
<p class="kommentare-zu">Die Kommentarfunktion für diesen Beitrag wurde geschlossen.</p>
</article></main></body></html>`;

export const SHOWN_STEPS = [
  'Den Backofen auf 180 Grad Ober- und Unterhitze vorheizen und eine Springform mit 26 cm Durchmesser einfetten.',
  'Mehl, Zucker, Butter und das Ei zu einem glatten Mürbeteig verkneten und in die Form drücken, dabei einen Rand hochziehen.',
  'Den Pudding nach Packungsanleitung kochen, abkühlen lassen und mit dem Quark glatt rühren, dann auf dem Teig verteilen.',
  'Den Kuchen etwa 70 Minuten backen und in der Form vollständig auskühlen lassen, am besten über Nacht.',
];
const SHOWN_GROUPS: Array<[string, string[][]]> = [
  [
    'Für den Mürbeteig:',
    [
      ['200 g', 'Mehl'],
      ['80 g', 'Zucker'],
      ['100 g', 'Butter'],
      ['1', 'Ei'],
    ],
  ],
  [
    'Für die Füllung:',
    [
      ['1 Pck.', 'Vanillepuddingpulver'],
      ['500 ml', 'Milch'],
      ['750 g', 'Magerquark'],
    ],
  ],
];

/**
 * A recipe site's page that shows its whole card as written (ingredients in a table under their own
 * sub-headings, the steps as paragraphs): Readability keeps the steps alone, and the JSON-LD's list
 * has none of the page's sub-headings.
 */
export const SHOWN_RECIPE_PAGE = `<!doctype html><html lang="de"><head><meta charset="utf-8">
<title>Quarkkuchen vom Blech | Rezeptwelt</title>
<script type="application/ld+json">${JSON.stringify({
  '@context': 'https://schema.org',
  '@type': 'Recipe',
  name: 'Quarkkuchen',
  recipeIngredient: SHOWN_GROUPS.flatMap(([, rows]) => rows.map(([amount, name]) => `${amount} ${name}`)),
  recipeInstructions: SHOWN_STEPS.map((text) => ({ '@type': 'HowToStep', text })),
})}</script></head>
<body><header><a href="/">Rezeptwelt</a></header>
<main><div class="recipe-page"><div class="recipe-head"><h1>Quarkkuchen</h1>
<div class="recipe-meta"><span>60 Min.</span> <span>normal</span></div></div>
<div class="ingredients"><h2>Zutaten</h2>
${SHOWN_GROUPS.map(([heading, rows]) => `<table><thead><tr><th colspan="2">${heading}</th></tr></thead><tbody>${rows.map(([a, n]) => `<tr><td>${a}</td><td>${n}</td></tr>`).join('')}</tbody></table>`).join('\n')}
</div>
<div class="recipe-body"><div class="preparation"><h2>Zubereitung</h2><div class="steps">${SHOWN_STEPS.map((s) => `<p>${s}</p>`).join('')}</div></div></div>
</div></main><footer><a href="/impressum">Impressum</a></footer></body></html>`;

export const SHOWN_HEADINGS = SHOWN_GROUPS.map(([heading]) => heading);

export const CARDS: Array<[string, string]> = [
  [
    'Barrierefreiheit',
    'Machen Sie Ihre App für alle Menschen zugänglich, auch mit Screenreader und Tastatur.',
  ],
  [
    'Animation und Bewegung',
    'Bringen Sie Übergänge und Bewegung in Ihre Oberfläche, ohne die Leistung zu opfern.',
  ],
  ['Bilder und Symbole', 'Verwalten Sie Bilder, zeigen Sie Symbole an und laden Sie Dateien aus dem Netz.'],
  ['Eingaben', 'Nehmen Sie Texteingaben, Gesten und Auswahlen entgegen und prüfen Sie sie.'],
  ['Layout', 'Ordnen Sie Elemente in Zeilen, Spalten, Rastern und Stapeln an.'],
  ['Text', 'Zeigen Sie Text in jeder Schrift an und gestalten Sie ihn.'],
];

/**
 * A docs index whose sections are cards: each a link around its title (a heading) and a sentence,
 * as documentation sites, shops and directories lay out their catalogues.
 */
export const CARD_GRID_PAGE = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Widget-Katalog – Doku</title></head>
<body><nav><a href="/">Start</a> <a href="/doku">Doku</a> <a href="/blog">Blog</a></nav>
<main><h1>Widget-Katalog</h1>
<p>Ein Überblick über die Bausteine der Oberfläche, nach Themen geordnet; jede Karte führt zu den Widgets ihres Themas.</p>
<div class="card-grid">${CARDS.map(([title, text], i) => `<a class="card" href="/doku/thema-${i}"><div class="card-body"><h3>${title}</h3><p>${text}</p></div></a>`).join('')}</div>
</main><footer><a href="/impressum">Impressum</a></footer></body></html>`;
