/**
 * Hand-written pages for content-choice.test.ts: a French shop page whose care and delivery notes sit
 * in accordions (a `<details>` group under a class name Readability weighs down, a panel opened by an
 * `aria-expanded` button), Spanish and German posts whose comments are closed, a German opinion
 * column, and a Dutch community post whose body Readability passes over for the sidebar's archive.
 */

export const SHOP_DESCRIPTION = [
  'Cette théière en fonte émaillée garde le thé chaud pendant plus d’une heure grâce à ses parois épaisses et à son couvercle ajusté.',
  'Le filtre amovible en acier inoxydable laisse aux feuilles la place de s’ouvrir, et se retire d’un geste quand l’infusion est prête.',
];
export const SHOP_ACCORDION = [
  'Expédition sous 48 heures depuis notre atelier de Lyon ; livraison offerte en France métropolitaine dès 60 euros d’achat.',
  'Retour gratuit sous 30 jours : renvoyez la théière dans son emballage d’origine et nous vous remboursons intégralement.',
];
export const SHOP_PANEL =
  'Rincez la théière à l’eau chaude sans savon après chaque usage et séchez-la aussitôt pour éviter la rouille.';

export const SHOP_PAGE = `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Théière Kyoto 0,8 L – Maison Thé</title></head>
<body><header><a href="/">Maison Thé</a><nav><a href="/thes">Thés</a> <a href="/theieres">Théières</a> <a href="/tasses">Tasses</a></nav></header>
<main id="contenu">
<section class="produit"><div class="produit__infos">
<h1>Théière Kyoto 0,8 L</h1>
<p class="prix">49,00 €</p>
<div class="produit__description rte">${SHOP_DESCRIPTION.map((p) => `<p>${p}</p>`).join('\n')}</div>
<div class="produit__accordeon quick-add-hidden">
<details><summary><div class="summary__title"><h2 class="h4">Livraison</h2></div></summary><div class="accordeon__contenu"><p>${SHOP_ACCORDION[0]}</p></div></details>
<details><summary><div class="summary__title"><h2 class="h4">Retours</h2></div></summary><div class="accordeon__contenu"><p>${SHOP_ACCORDION[1]}</p></div></details>
</div>
<div class="onglets"><button type="button" aria-expanded="false" aria-controls="panneau-entretien">Entretien</button>
<div id="panneau-entretien" class="panneau" hidden><p>${SHOP_PANEL}</p></div></div>
</div></section>
</main>
<footer><a href="/mentions-legales">Mentions légales</a> <a href="/cgv">CGV</a></footer></body></html>`;

export const POST_TEXT_ES = [
  'El ayuntamiento aprobó ayer la ampliación del carril bici de la avenida del Puerto, que conectará por fin el barrio de pescadores con la estación de tren.',
  'Las obras empezarán en septiembre y durarán unos cinco meses; durante ese tiempo los autobuses de la línea 4 cambiarán su recorrido por la calle Mayor.',
  'Los comerciantes de la avenida, que al principio se oponían al proyecto, pidieron que se mantengan las zonas de carga y descarga a primera hora de la mañana.',
];

export const CLOSED_COMMENTS_ES = `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Más carril bici en el Puerto – Diario del Puerto</title></head>
<body><nav><a href="/">Portada</a> <a href="/ciudad">Ciudad</a></nav>
<main><article><h1>Más carril bici en el Puerto</h1>
${POST_TEXT_ES.map((p) => `<p>${p}</p>`).join('\n')}
<section id="comentarios" class="zona-comentarios"><p>Los comentarios de esta noticia están cerrados.</p></section>
</article></main></body></html>`;

export const OPINION_TEXT_DE = [
  'Die Stadt hat zu lange gezögert. Seit fünf Jahren ist bekannt, dass die Brücke über den Kanal nicht mehr lange hält, und trotzdem wurde die Sanierung immer wieder verschoben.',
  'Jetzt zahlen die Pendler den Preis: Umwege von zwanzig Minuten, volle Busse, und ein Ende der Sperrung ist nicht in Sicht.',
  'Wer Verantwortung trägt, muss jetzt handeln. Ein Kommentar allein repariert keine Brücke.',
];

/** A German opinion column: its class says "Kommentar", its text is the article. */
export const OPINION_DE = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Die Brücke hätte nicht warten dürfen – Kurier</title></head>
<body><nav><a href="/">Start</a> <a href="/meinung">Meinung</a></nav>
<main><div class="kommentar-beitrag"><h1>Die Brücke hätte nicht warten dürfen</h1>
${OPINION_TEXT_DE.map((p) => `<p>${p}</p>`).join('\n')}
<p class="kommentar-fazit">Die Sperrung muss ein Ende haben.</p>
</div></main></body></html>`;

export const COMMUNITY_POST_NL = [
  'Vorige week hebben we met de hele straat de oude speeltuin achter het buurthuis opgeknapt. Er stonden nog twee roestige schommels en een zandbak vol onkruid.',
  'De gemeente leverde het hout en de nieuwe klimtoestellen, en de buren zorgden voor koffie, soep en heel veel handen. Zelfs de kinderen hielpen mee met schuren en verven.',
  'Op zaterdagmiddag stond alles er: een klimrek, een glijbaan, twee bankjes in de schaduw en een moestuintje waar de basisschool dit voorjaar tomaten gaat kweken.',
  'Volgend jaar willen we hetzelfde doen met het grasveld bij de vijver. Wie mee wil denken, kan zich melden bij het buurthuis op woensdagavond.',
];
export const ARCHIVE_TEASERS = [
  'Maart: de buurtbarbecue verhuist naar het plein voor de kerk, omdat het buurthuis dan verbouwd wordt.',
  'Februari: de fietsenstalling bij het station krijgt eindelijk een dak en verlichting, meldt de wijkraad.',
  'Januari: het nieuwjaarsconcert van het buurtkoor trok meer dan tweehonderd bezoekers naar de aula.',
  'December: de kerstmarkt bracht genoeg op voor een nieuwe defibrillator aan de gevel van de bakkerij.',
];

/**
 * A Dutch neighbourhood blog: the post sits in a container Readability takes for a comments area
 * ("community"), so its pick is the sidebar's archive of teasers.
 */
export const COMMUNITY_PAGE_NL = `<!doctype html><html lang="nl"><head><meta charset="utf-8"><title>Speeltuin opgeknapt – Buurtblog Oost</title></head>
<body><div class="wrapper">
<div class="community-post"><h1>Speeltuin opgeknapt</h1>
${COMMUNITY_POST_NL.map((p) => `<div class="community-post__alinea">${p}</div>`).join('\n')}
</div>
<div class="zijkolom"><h2>Archief</h2>
${ARCHIVE_TEASERS.map((t) => `<p>${t} <a href="/archief/${t.slice(0, 4)}">Lees meer</a></p>`).join('\n')}
</div></div></body></html>`;

export const REVIEW_TEXT = [
  'Wer seine Aufgaben auf Karten sortiert, kennt das Prinzip: Jede Karte ist eine Aufgabe, jede Spalte ein Zustand, und eine Karte wandert von links nach rechts, bis sie erledigt ist.',
  'Die vier Werkzeuge, die wir uns angesehen haben, laufen alle auf dem eigenen Server, und alle lassen sich mit einem Team teilen, ohne dass Daten bei einem fremden Anbieter landen.',
  'Am einfachsten einzurichten war das kleinste von ihnen: ein Container, eine Datenbank, und nach zehn Minuten stand die erste Tafel mit drei Spalten und einem Dutzend Karten.',
];
export const READER_COMMENTS = Array.from(
  { length: 6 },
  (_, i) =>
    `Leserin ${i + 1}: Wir nutzen seit Jahren ein ähnliches Werkzeug im Verein, und ehrlich gesagt fehlt mir in dieser Übersicht der Vergleich der Rechteverwaltung, die bei uns am Ende den Ausschlag gegeben hat (Kommentar ${i + 1}).`,
);

/**
 * A review in the page's <main> with its readers' comments below it, twice its length and more: the
 * comments make the main area big, and do not make the page a thread.
 */
export const REVIEW_WITH_COMMENTS = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Vier Kanban-Tafeln für den eigenen Server – Werkbank</title></head>
<body><header><a href="/">Werkbank</a></header><main>
<div class="article-body"><h1>Vier Kanban-Tafeln für den eigenen Server</h1>${REVIEW_TEXT.map((p) => `<p>${p}</p>`).join('')}</div>
<section id="comments" class="comment-wrapper"><h2>6 Kommentare</h2>${READER_COMMENTS.map((c, i) => `<article id="comment-${i}" class="comment"><div class="comment__author">Gast</div><div class="comment__body"><p>${c}</p></div></article>`).join('')}</section>
</main><footer>© Werkbank</footer></body></html>`;
