"""Languages and localised words: stop words, months, the strings a derived page adds in
its page's language (print/mirror notes, dates, categories, ...), synonyms, made-up names
and titles any page may carry.

Derived pages speak their page's language (the sources are mostly German and English), so
the words several kinds and the cues add come from these shared tables; words only one
kind uses live in that kind's module.
"""
import re

STOP = {
    'en': 'the and of to in is that for it with as was on are be by this have from or at not but an they which you his her were has their been will would there what all when more said its who about one also'.split(),
    'de': 'der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden aus er hat dass sie nach wird bei einer um am sind noch wie einem über so zum war haben nur oder aber vor zur bis mehr durch man'.split(),
    'fr': 'le la les de des et en un une du est que qui dans pour pas au sur par plus ne se ce il elle sont avec son sa ses mais ou nous vous leur été être aux cette'.split(),
    'es': 'el la los las de del y en un una que es por con para se no su al lo como más pero sus le ya o este fue ha son entre cuando muy sin sobre también'.split(),
    'it': 'il lo la i gli le di del della e in un una che è per con non si da al dei delle sono come anche più ma nel alla questo'.split(),
    'pt': 'o a os as de do da dos das e em um uma que é para com não se por no na mais mas como ao foi são também ou seu sua'.split(),
    'nl': 'de het een en van in is dat op te zijn voor met die niet aan er om ook als bij of door maar naar dan nog wordt'.split(),
    'pl': 'i w na z do nie się że to jest o jak po przez od za dla co ale czy już tak jego oraz być może'.split(),
    'cs': 'a v na se je že s z do o to jako by za ale které i k po jsou pro od jeho tak'.split(),
    'sv': 'och i att det som en på är av för med till den har de inte om ett var jag men'.split(),
}
STOPSETS = {k: set(v) for k, v in STOP.items()}
ALL_STOP = set().union(*STOPSETS.values())

MONTHS = {
    'en': 'January February March April May June July August September October November December'.split(),
    'de': 'Januar Februar März April Mai Juni Juli August September Oktober November Dezember'.split(),
    'fr': 'janvier février mars avril mai juin juillet août septembre octobre novembre décembre'.split(),
    'es': 'enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre'.split(),
    'it': 'gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre'.split(),
    'pt': 'janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro'.split(),
    'nl': 'januari februari maart april mei juni juli augustus september oktober november december'.split(),
}

L10N = {
    'en': dict(print='Print', printed='Printed from', full='Full version', textonly='Text-only version',
               mirror='This is a mirror of {u}. Last synchronised {d}.',
               snapshot='Saved copy of {u} as it appeared on {d}.',
               orig='This article originally appeared on {s}.', reading='{n} people are reading this now',
               reco='Recommended for you', ad='Advertisement', updated='Last modified: {d}',
               published='Published {d}', home='Home', version='Version {v}', location='Location: {u}',
               cats='News World Business Technology Science Culture Sports Opinion Health Travel Politics Local'),
    'de': dict(print='Drucken', printed='Gedruckt von', full='Vollständige Version', textonly='Nur-Text-Version',
               mirror='Dies ist ein Spiegel von {u}. Zuletzt synchronisiert am {d}.',
               snapshot='Gespeicherte Kopie von {u} vom {d}.',
               orig='Dieser Artikel erschien zuerst bei {s}.', reading='{n} Personen lesen gerade diesen Artikel',
               reco='Empfohlen für Sie', ad='Anzeige', updated='Zuletzt geändert: {d}',
               published='Veröffentlicht am {d}', home='Startseite', version='Version {v}', location='Adresse: {u}',
               cats='Nachrichten Politik Wirtschaft Kultur Wissen Sport Reise Digital Gesellschaft Regional Panorama'),
    'fr': dict(print='Imprimer', printed='Imprimé depuis', full='Version complète', textonly='Version texte',
               mirror='Ceci est un miroir de {u}. Dernière synchronisation le {d}.',
               snapshot='Copie enregistrée de {u} telle qu\u2019elle apparaissait le {d}.',
               orig='Cet article a été publié à l\u2019origine sur {s}.', reading='{n} personnes lisent cet article',
               reco='Recommandé pour vous', ad='Publicité', updated='Dernière modification : {d}',
               published='Publié le {d}', home='Accueil', version='Version {v}', location='Adresse : {u}',
               cats='Actualités Monde Économie Culture Sciences Sport Politique Société Santé Voyage'),
    'es': dict(print='Imprimir', printed='Impreso desde', full='Versión completa', textonly='Versión solo texto',
               mirror='Esta es una réplica de {u}. Última sincronización: {d}.',
               snapshot='Copia guardada de {u} tal como aparecía el {d}.',
               orig='Este artículo se publicó originalmente en {s}.', reading='{n} personas están leyendo esto',
               reco='Recomendado para ti', ad='Publicidad', updated='Última modificación: {d}',
               published='Publicado el {d}', home='Inicio', version='Versión {v}', location='Dirección: {u}',
               cats='Noticias Mundo Economía Cultura Ciencia Deportes Política Sociedad Salud Viajes Nacionales'),
    'it': dict(print='Stampa', printed='Stampato da', full='Versione completa', textonly='Versione solo testo',
               mirror='Questo è un mirror di {u}. Ultima sincronizzazione {d}.',
               snapshot='Copia salvata di {u} del {d}.',
               orig='Questo articolo è apparso originariamente su {s}.', reading='{n} persone stanno leggendo',
               reco='Consigliati per te', ad='Pubblicità', updated='Ultima modifica: {d}',
               published='Pubblicato il {d}', home='Home', version='Versione {v}', location='Indirizzo: {u}',
               cats='Notizie Mondo Economia Cultura Scienza Sport Politica Salute Viaggi'),
    'pt': dict(print='Imprimir', printed='Impresso de', full='Versão completa', textonly='Versão só texto',
               mirror='Este é um espelho de {u}. Última sincronização em {d}.',
               snapshot='Cópia guardada de {u} em {d}.',
               orig='Este artigo foi publicado originalmente em {s}.', reading='{n} pessoas estão lendo agora',
               reco='Recomendados para você', ad='Publicidade', updated='Última modificação: {d}',
               published='Publicado em {d}', home='Início', version='Versão {v}', location='Endereço: {u}',
               cats='Notícias Mundo Economia Cultura Ciência Esporte Política Saúde Viagem'),
}


def loc(lang):
    return L10N.get(lang, L10N['en'])


def fmt_date(lang, y, mo, d):
    ms = MONTHS.get(lang)
    if lang == 'en':
        return '%s %d, %d' % (ms[mo - 1], d, y)
    if lang == 'de':
        return '%d. %s %d' % (d, ms[mo - 1], y)
    if ms:
        return '%d %s %d' % (d, ms[mo - 1], y)
    return '%04d-%02d-%02d' % (y, mo, d)


def rand_date(rng, lang, y0=2012, y1=2023):
    y, mo, d = rng.randint(y0, y1), rng.randint(1, 12), rng.randint(1, 28)
    return fmt_date(lang, y, mo, d), (y, mo, d)


def detect_lang(hint, text):
    if hint:
        h = hint.strip().lower().replace('_', '-').split('-')[0]
        if re.fullmatch(r'[a-z]{2,3}', h):
            return h
    sample = text[:20000]
    if not sample:
        return 'und'
    cjk = len(re.findall(r'[\u4e00-\u9fff]', sample))
    kana = len(re.findall(r'[\u3040-\u30ff]', sample))
    hang = len(re.findall(r'[\uac00-\ud7af]', sample))
    cyr = len(re.findall(r'[\u0400-\u04ff]', sample))
    ar = len(re.findall(r'[\u0600-\u06ff]', sample))
    he = len(re.findall(r'[\u0590-\u05ff]', sample))
    el = len(re.findall(r'[\u0370-\u03ff]', sample))
    n = max(1, len(sample))
    if kana > 20 and (kana + cjk) / n > 0.1:
        return 'ja'
    if hang / n > 0.1:
        return 'ko'
    if cjk / n > 0.1:
        return 'zh'
    for code, c in (('ru', cyr), ('ar', ar), ('he', he), ('el', el)):
        if c / n > 0.2:
            return code
    words = re.findall(r'[^\W\d_]+', sample.lower())
    best, bc = 'und', 0
    for code, ss in STOPSETS.items():
        c = sum(1 for w in words if w in ss)
        if c > bc:
            best, bc = code, c
    return best if bc >= 3 else 'und'


def title_words(title, lang, rng):
    """1-3 salient words of a title: a query a user might have typed."""
    words = re.findall(r'[^\W_][\w\'’-]*', title)
    good = [w for w in words if len(w) >= 3 and w.lower() not in ALL_STOP and not w.isdigit()]
    if not good:
        if lang in ('zh', 'ja', 'ko') and title:
            t = re.sub(r'[\s\W]+', '', title)
            if t:
                a = rng.randrange(max(1, len(t) - 3))
                return t[a:a + rng.randint(2, 4)]
        return ''
    k = rng.choice([1, 2, 2, 2, 3, 3])
    # prefer the longer (more salient) words, keep their title order
    ranked = sorted(range(len(good)), key=lambda i: (-len(good[i]), i))[:k]
    return ' '.join(good[i] for i in sorted(ranked)).lower()[:60]


# synonyms for consistent word replacement (rebrand) and rewording (small-edit)
SYN = {
    'en': {'said': 'stated', 'says': 'states', 'people': 'folks', 'company': 'firm', 'companies': 'firms',
           'however': 'nevertheless', 'important': 'significant', 'big': 'large', 'started': 'began',
           'often': 'frequently', 'world': 'globe', 'children': 'kids', 'car': 'vehicle', 'cars': 'vehicles',
           'city': 'town', 'quickly': 'rapidly', 'maybe': 'perhaps', 'problem': 'issue', 'problems': 'issues',
           'website': 'site', 'users': 'customers', 'user': 'customer', 'government': 'administration',
           'almost': 'nearly', 'really': 'truly', 'because': 'since', 'difficult': 'hard',
           'beautiful': 'lovely', 'happy': 'glad', 'photo': 'picture', 'photos': 'pictures'},
    'de': {'sagte': 'erklärte', 'Menschen': 'Leute', 'Unternehmen': 'Firmen', 'aber': 'jedoch',
           'wichtig': 'bedeutend', 'wichtige': 'bedeutende', 'oft': 'häufig', 'viele': 'zahlreiche',
           'Problem': 'Schwierigkeit', 'Probleme': 'Schwierigkeiten', 'schnell': 'rasch',
           'vielleicht': 'eventuell', 'bekommen': 'erhalten', 'benutzen': 'verwenden', 'nutzen': 'verwenden',
           'Auto': 'Wagen', 'deshalb': 'daher', 'sehr': 'äußerst', 'immer': 'stets', 'jetzt': 'nun',
           'außerdem': 'zudem', 'trotzdem': 'dennoch', 'bereits': 'schon', 'ungefähr': 'etwa',
           'beginnen': 'anfangen', 'kaufen': 'erwerben', 'Kinder': 'Kids', 'Stadt': 'Kommune',
           'natürlich': 'selbstverständlich', 'wirklich': 'tatsächlich', 'Leben': 'Dasein',
           'einfach': 'schlicht', 'Firma': 'Unternehmen'},
    'fr': {'très': 'fort', 'aussi': 'également', 'souvent': 'fréquemment', 'maintenant': 'désormais',
           'rapidement': 'vite', 'entreprise': 'société', 'gens': 'personnes', 'voiture': 'automobile',
           'problème': 'souci', 'commencer': 'débuter', 'acheter': 'acquérir', 'utiliser': 'employer',
           'important': 'essentiel', 'mais': 'cependant', 'peut-être': 'sans doute', 'enfants': 'gamins',
           'ville': 'cité', 'travail': 'boulot', 'toujours': 'sans cesse', 'beaucoup': 'énormément'},
    'es': {'muy': 'sumamente', 'también': 'asimismo', 'ahora': 'actualmente', 'rápidamente': 'velozmente',
           'empresa': 'compañía', 'coche': 'auto', 'problema': 'inconveniente', 'comenzar': 'empezar',
           'comprar': 'adquirir', 'usar': 'utilizar', 'importante': 'relevante', 'dijo': 'afirmó',
           'pero': 'aunque', 'niños': 'chicos', 'ciudad': 'urbe', 'gobierno': 'ejecutivo',
           'trabajo': 'empleo', 'siempre': 'constantemente', 'personas': 'individuos', 'país': 'nación'},
    'it': {'molto': 'assai', 'anche': 'pure', 'adesso': 'ora', 'azienda': 'impresa', 'problema': 'questione',
           'importante': 'rilevante', 'bambini': 'ragazzi', 'città': 'centro', 'lavoro': 'impiego',
           'sempre': 'costantemente', 'persone': 'individui', 'ma': 'però'},
    'pt': {'muito': 'bastante', 'também': 'igualmente', 'agora': 'atualmente', 'empresa': 'companhia',
           'problema': 'questão', 'importante': 'relevante', 'crianças': 'miúdos', 'cidade': 'urbe',
           'trabalho': 'emprego', 'sempre': 'constantemente', 'pessoas': 'indivíduos', 'mas': 'porém'},
    'nl': {'zeer': 'heel', 'ook': 'eveneens', 'nu': 'thans', 'bedrijf': 'onderneming', 'probleem': 'kwestie',
           'belangrijk': 'essentieel', 'kinderen': 'kids', 'stad': 'gemeente', 'werk': 'arbeid',
           'altijd': 'steeds', 'mensen': 'personen', 'maar': 'doch'},
}


# made-up people (changed names in key-facts, bylines of client-rendered articles)
NAMES2 = ['Laura Bennett', 'Marco Rossi', 'Jonas Keller', 'Amélie Dubois', 'Carlos Ortega', 'Priya Nair',
          'Tomasz Nowak', 'Elena Petrova', 'Hannah Weber', 'Samuel Okoro', 'Yuki Tanaka', 'Lucas Martin',
          'Sofia Lindqvist', 'Daniel Fischer', 'Grace Holloway', 'Mateo Alvarez', 'Nadia Haddad',
          'Oliver Grant', 'Clara Hoffmann', 'Ines Moreau', 'Victor Almeida', 'Julia Kowalski',
          'Henrik Berg', 'Rosa Delgado', 'Felix Brandt', 'Anna Schulte', 'Peter Lang', 'Maria Costa']


# Titles a page may carry whatever its content: app shells, CMS defaults, site names.
GENERIC_TITLES = {
    'en': ['Loading\u2026', 'Home', 'Article', 'News', 'Untitled document', 'Read more'],
    'de': ['Wird geladen \u2026', 'Startseite', 'Artikel', 'Nachrichten', 'Aktuelles'],
    'fr': ['Chargement\u2026', 'Accueil', 'Article', 'Actualit\u00e9s'],
    'es': ['Cargando\u2026', 'Inicio', 'Art\u00edculo', 'Noticias'],
}
