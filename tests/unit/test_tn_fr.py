"""French normalization (voice_tts.tn.locales.fr): readings per class, stream = one-shot, offsets."""

from __future__ import annotations

import re

import pytest
from tn_locale_checks import assert_stream_equals_one_shot, fragment_texts

from voice_tts.tn import normalize

READINGS = [
    # a running pace after its slash: minutes and seconds per kilometer, never a clock; a unit's symbol after 'au' its name
    ("Elle a tenu 4:25/km puis 4'05\"/km, soit 4 min 10 s au km.",
     "Elle a tenu quatre minutes vingt-cinq secondes par kilomètre puis quatre minutes cinq secondes par kilomètre, "
     "soit quatre minutes dix secondes au kilomètre."),
    # 'de' and 'que' elide before a count read 'un', 'une' ('d'un', 'qu'une'), never before 'huit', 'onze' or 'mille'
    ("Un rabais de 1 € sur plus de 1 heure, pas de 8 ni de 11 ; ce n'est que 1 fois sur 1 000.",
     "Un rabais d'un euro sur plus d'une heure, pas de huit ni de onze ; ce n'est qu'une fois sur mille."),
    # an abbreviated weekday before a day is the weekday, the day and month after it a date; before a year no weekday
    ("Livraison mar. 9/3 ou mer. 10/3, pas le 15 mar. 2026.",
     "Livraison mardi neuf mars ou mercredi dix mars, pas le quinze mar. deux mille vingt-six."),
    # a price per litre as per kilo: 'le litre'
    ("Le gazole est à 1,65 €/l et le lait à 1 €/L.",
     "Le gazole est à un euro soixante-cinq le litre et le lait à un euro le litre."),
    # two years in a row joined by a dash: a season, both years; after a preposition a range
    ("La saison 2025–2026 commence ; en 2019-2020 non.",
     "La saison deux mille vingt-cinq deux mille vingt-six commence ; en deux mille dix-neuf à deux mille vingt non."),
    # a word over a period after an amount: 'net/mois' net par mois
    ("Salaire : 2 100 € net/mois.", "Salaire : deux mille cent euros net par mois."),
    # a plus sign before a number is read, as a minus is
    ("Ventes en hausse (+4,2 %), coûts en baisse (-1,5 %).",
     "Ventes en hausse (plus quatre virgule deux pour cent), coûts en baisse (moins un virgule cinq pour cent)."),
    # a race's time in primes (hours 'h', minutes ', seconds "): its parts named, no inches
    ("Il a gagné en 1h58'07\", devant un coureur arrivé en 59'40\".",
     "Il a gagné en une heure cinquante-huit minutes sept secondes, devant un coureur arrivé en cinquante-neuf minutes "
     "quarante secondes."),
    # a duration written with its units: a zero-led count of minutes or seconds is a number
    ("Record battu en 1 h 07 min 09 s.", "Record battu en une heure sept minutes neuf secondes."),
    # metres with two decimals: the metres, then the centimetres as a number
    ("Il mesure 1,78 m et la porte fait 2,05 m de haut.",
     "Il mesure un mètre soixante-dix-huit et la porte fait deux mètres cinq de haut."),
    # a blood pressure in centimetres of mercury after 'tension' is read as its two numbers, never a date
    ("Sa tension artérielle était de 15/9 ce matin.", "Sa tension artérielle était de quinze neuf ce matin."),
    # a noun's feminine the dictionary makes from an adjective's ('paire' by 'pair', 'adhérente') counts feminine
    ("Il reste 31 paires de gants pour 1 adhérente.", "Il reste trente-et-une paires de gants pour une adhérente."),
    # a noun in '-euse' is feminine
    ("Livraison de 2 tables et 1 perceuse.", "Livraison de deux tables et une perceuse."),
    # 'Ø' before a size is its diameter
    ("Une poêle Ø 28 cm.", "Une poêle diamètre vingt-huit centimètres."),
    # a time with seconds is a race's, a duration
    ("Elle a couru en 3:41:20.", "Elle a couru en trois heures quarante-et-une minutes vingt secondes."),
    # capitals before digits, or groups of capitals and digits: a code sign by sign, a year inside it too
    ("Dossier RC-2026/0457, code PK4471.", "Dossier R C deux zéro deux six zéro quatre cinq sept, code P K quatre quatre sept un."),
    # a lone number with a leading zero is a code, digit by digit (a telephone's groups are numbers)
    ("La plaque 5TRK208 est notée.", "La plaque cinq T R K deux zéro huit est notée."),  # digits, capitals, digits: sign by sign
    ("Votre ticket n° 0482 reste valable.", "Votre ticket numéro zéro quatre huit deux reste valable."),
    # cardinals: space-grouped thousands, signs
    ("Nous avons 6 492 000 clients.", "Nous avons six millions quatre cent quatre-vingt-douze mille clients."),
    ("Il fait -4 dehors.", "Il fait moins quatre dehors."),
    ("Il y a 71 places et 80 chaises.", "Il y a soixante-et-onze places et quatre-vingts chaises."),
    # a percent sign written against the number reads as one after a space does
    ("Une hausse de 12,5% et 7%.", "Une hausse de douze virgule cinq pour cent et sept pour cent."),
    # ordinals: suffixes, degree sign, Roman numerals
    ("Le 2e étage, la 1re fois, les 1ers jours", "Le deuxième étage, la première fois, les premiers jours"),
    ("Il est arrivé 80e et 5ème.", "Il est arrivé quatre-vingtième et cinquième."),
    ("Le XXe siècle", "Le vingtième siècle"),
    # decimals and percent; a chapter's or a room's dotted number part by part
    ("Voir le chapitre 3.2, salle 2.14.", "Voir le chapitre trois point deux, salle deux point quatorze."),
    # a Roman numeral after an article of a law is its number, after an elided article too; a unit's plural ('bars')
    ("Selon l'article XII, la cuve tient 8 bar.", "Selon l'article douze, la cuve tient huit bars."),
    # a price per square metre 'le mètre carré'; a price's terms after it in capitals ('FAI' frais d'agence inclus)
    ("Maison vendue 240 000 € FAI, soit 2 100 €/m².",
     "Maison vendue deux cent quarante mille euros frais d'agence inclus, "
     "soit deux mille cent euros le mètre carré."),
    ("Une hausse de 3,5 %", "Une hausse de trois virgule cinq pour cent"),
    ("Pi vaut 3,05 environ.", "Pi vaut trois virgule zéro cinq environ."),
    ("Un budget de 18,2 milliards", "Un budget de dix-huit virgule deux milliards"),
    # money
    ("Votre commande coûte 25,50 €.", "Votre commande coûte vingt-cinq euros cinquante."),
    # a scale's letters against a currency ('28 M€' millions, '1,5 Md€' milliard, '30 k€' mille)
    ("Le club a versé 28 M€ pour le milieu et 1,5 Md€ pour le stade ; l'entraîneur touche 30 k€ par mois.",
     "Le club a versé vingt-huit millions d'euros pour le milieu et un virgule cinq milliard d'euros pour le stade ; "
     "l'entraîneur touche trente mille euros par mois."),
    ("Seulement 1 € ou $15", "Seulement un euro ou quinze dollars"),
    # dates
    ("Le 1er mai 2025", "Le premier mai deux mille vingt-cinq"),
    ("Né le 14/07/1989.", "Né le quatorze juillet mille neuf cent quatre-vingt-neuf."),
    ("Les 17-18 juin", "Les dix-sept dix-huit juin"),
    # times
    ("Rendez-vous à 14h30 ou à 9:05.", "Rendez-vous à quatorze heures trente ou à neuf heures cinq."),
    ("Départ à 1h", "Départ à une heure"),
    # ranges: hours written with "h" as times ("de … à"), others with "à" alone, as French says them
    ("Ouvert du lundi au samedi, 9h–19h.", "Ouvert du lundi au samedi, de neuf heures à dix-neuf heures."),
    ("Livraison 2–4 jours, en 3-5 jours.", "Livraison deux à quatre jours, en trois à cinq jours."),
    ("Comptez 3–5 jours ouvrés ; la norme (7–12 mg/l).",
     "Comptez trois à cinq jours ouvrés ; la norme (sept à douze milligrammes par litre)."),
    # measures and fractions; a speed in km/h 'kilomètres-heure'
    ("Il fait 21 °C et on roule à 120 km/h, le vent souffle à 45 km/h.",
     "Il fait vingt-et-un degrés et on roule à cent vingt kilomètres-heure, le vent souffle à quarante-cinq "
     "kilomètres-heure."),
    ("Ajoutez 1/2 litre et 2/3 de farine.", "Ajoutez un demi-litre et deux tiers de farine."),
    ("Un appartement de 1 m²", "Un appartement d'un mètre carré"),
    # telephone numbers and addresses
    ("Appelez le 01 23 45 67 89.", "Appelez le zéro un vingt-trois quarante-cinq soixante-sept quatre-vingt-neuf."),
    ("Écrivez à contact@exemple.fr.", "Écrivez à contact arobase exemple point f r."),
    # abbreviations
    ("Mme Dupont et M. Martin, n° 12, etc.", "madame Dupont et monsieur Martin, numéro douze, et cetera."),
    # a card's last digits, a reference, a range's unit, a Roman numeral before its noun
    ("Carte se terminant par 4821, dossier RT-5803, le III Festival ; température : 2-8 °C.", "Carte se terminant "
     "par quatre huit deux un, dossier R T cinq huit zéro trois, le troisième Festival ; température : deux à huit "
     "degrés."),
    # a code a code word names a few words before it, by its digits; a year after 'de' stays one
    ("Saisissez le code 305 817 ; les 4 derniers chiffres de la carte sont 2046, au Code civil de 1804.", "Saisissez le "
     "code trois zéro cinq huit un sept ; les quatre derniers chiffres de la carte sont deux zéro quatre six, au Code civil "
     "de mille huit cent quatre."),
    # 'nos' after a plural noun and before numbers joined by 'à' or 'et' is 'numéros'; before a noun the possessive
    ("Les chambres nos 12 et 14 donnent sur la cour ; nos 3 enfants dorment dans les lits nos 1 à 3.",
     "Les chambres numéros douze et quatorze donnent sur la cour ; nos trois enfants dorment dans les lits numéros un à "
     "trois."),
    # a code written in pairs is read pair by pair, as a telephone number's
    ("Le digicode est le 49 07 26, le code PIN 12 85.", "Le digicode est le quarante-neuf zéro sept vingt-six, le code PIN "
     "douze quatre-vingt-cinq."),
    # units CLDR lacks (a small table), CLDR's concentrations, a dose per an amount, dimensions, inches, a mark out of its top
    ("La batterie fait 4500 mAh, le moteur tourne à 1200 tr/min ; sirop à 250 mg/5 ml.", "La batterie fait quatre mille cinq "
     "cents milliampères-heures, le moteur tourne à mille deux cents tours par minute ; sirop à deux cent cinquante "
     "milligrammes par cinq millilitres."),
    ("La ferritine est à 320 pg/ml et la glycémie à 5,4 mmol/L.", "La ferritine est à trois cent vingt picogrammes par "
     "millilitre et la glycémie à cinq virgule quatre millimoles par litre."),
    ("Les carreaux font 30×60cm, la table 80 x 120 cm et l’écran 27\".", "Les carreaux font trente sur soixante "
     "centimètres, la table quatre-vingts sur cent vingt centimètres et l’écran vingt-sept pouces."),
    ("Le meuble fait 120 x 60 x 45 cm, le carton 40×30×20cm.", "Le meuble fait cent vingt sur soixante sur quarante-cinq "
     "centimètres, le carton quarante sur trente sur vingt centimètres."),
    ("Le forfait coûte 1 CHF par jour, soit 365 CHF par an.", "Le forfait coûte un franc suisse par jour, soit trois cent "
     "soixante-cinq francs suisses par an."),
    ("Votre numéro de suivi est le 6620 1185.", "Votre numéro de suivi est le six six deux zéro un un huit cinq."),
    ("Livraison mardi, 7/4, ou jeudi, 9/4.", "Livraison mardi, sept avril, ou jeudi, neuf avril."),
    ("Le stage a lieu du 3-7 juillet.", "Le stage a lieu du trois au sept juillet."),
    ("Ouvert lun.–sam., fermé du sam. au dim.", "Ouvert du lundi au samedi, fermé du samedi au dimanche."),
    ("Il a eu 18/20 et 95/100.", "Il a eu dix-huit sur vingt et quatre-vingt-quinze sur cent."),
    ("Le tuyau fait 3/4\", prenez 1000 UI de vitamine D et 150 mcg d’iode ; pouls à 72 bpm.", "Le tuyau fait trois quarts "
     "de pouce, prenez mille unités internationales de vitamine D et cent cinquante microgrammes d’iode ; pouls à "
     "soixante-douze battements par minute."),
    # a half before an abbreviation in its noun's gender; '… et ½' a count's half only where a preposition follows
    ("Ajoutez ½ c. à s. d'huile, ½ c. à c. de sel et ½ litre de lait, puis 2 pommes et ½ de sucre.", "Ajoutez une demi cuillère à "
     "soupe d'huile, une demi cuillère à café de sel et un demi-litre de lait, puis deux pommes et demie de sucre."),
    # the same half written '1/2'
    ("Mélangez 1/2 c. à c. de cannelle et 1/2 c. à s. de miel dans 1/2 verre.", "Mélangez une demi cuillère à café de cannelle et "
     "une demi cuillère à soupe de miel dans un demi-verre."),
    # a count before an abbreviation of several parts, in its noun's gender
    ("Ajoutez 1 c. à s. de sucre et 1 c. à c. de sel.", "Ajoutez une cuillère à soupe de sucre et une cuillère à café de sel."),
    ("Ajoutez 2 ½ tasses de farine.", "Ajoutez deux tasses et demie de farine."),
    # a product before '=' reads its 'x' as '×' does (fois), not as a size's 'sur'
    ("Si 2 x 3 = 6, alors 2,5 x 4 = 10 ; la pièce fait 2 x 3 m.", "Si deux fois trois égal six, alors deux virgule cinq fois quatre "
     "égal dix ; la pièce fait deux sur trois mètres."),
    ("La batterie de 50 Wh se recharge en 30 min., puis s'arrête.", "La batterie de cinquante wattheures se recharge en trente minutes, puis s'arrête."),
    # a code after 'n°' sign by sign, 'réf.' and 'pers.' in full, 'demi-' joined to its unit, a space before ';' and '?' kept
    ("Pour 3 pers., ajoutez ½ l d'eau ; le colis n° 7C 2231 9900 (réf. 12) arrive sous 2-3 jours. Le jeu., 9/10, à 16 h ?",
     "Pour trois personnes, ajoutez un demi-litre d'eau ; le colis numéro sept C deux deux trois un neuf neuf zéro zéro (référence "
     "douze) arrive sous deux à trois jours. Le jeudi, neuf octobre, à seize heures ?"),
    # a Roman numeral after a room's noun is its number; after a king's name, his
    ("Le cours a lieu salle IV, puis quai II ; Henri IV y dormit.", "Le cours a lieu salle quatre, puis quai deux ; Henri quatre y dormit."),
    # abbreviations of a booking and a price in full
    ("Le forfait, petit-déj. inclus, coûte 90 € TTC, soit 75 € HT ; prenez RDV.", "Le forfait, petit-déjeuner inclus, coûte quatre-vingt-dix euros toutes taxes comprises, soit soixante-quinze euros hors taxes ; prenez rendez-vous."),
    # a number written in groups of three read group by group, as French says them
    ("Le service client : 0 806 250 250.", "Le service client : zéro huit cent six deux cent cinquante deux cent cinquante."),
    # an abbreviation that opens a sentence opens its reading with a capital
    ("M. Leroy vous rappelle. Merci, M. Leroy.", "Monsieur Leroy vous rappelle. Merci, monsieur Leroy."),
    ("Le régime donne 1800 kcal par jour.", "Le régime donne mille huit cents kilocalories par jour."),
    # fixed expressions of opening hours, written with or without their spaces
    ("Joignable 24 h/24 et 7 j/7, l'agence 24h/24h.", "Joignable vingt-quatre heures sur vingt-quatre et sept jours "
     "sur sept, l'agence vingt-quatre heures sur vingt-quatre."),
    # a Roman numeral after an abbreviated chapter word is its number; eras in full
    ("Voir le chap. III, art. II ; fondée en 52 av. J.-C., détruite en 410 apr. J.-C.", "Voir le chapitre trois, "
     "article deux ; fondée en cinquante-deux avant Jésus-Christ, détruite en quatre cent dix après Jésus-Christ."),
    # a rent's terms written in capitals after it: charges comprises, hors charges; not a copy's 'CC'
    ("Le T3 est à 1 150 € CC, soit 980 €/mois HC ; mettez-moi en CC.", "Le T trois est à mille cent cinquante euros "
     "charges comprises, soit neuf cent quatre-vingts euros par mois hors charges ; mettez-moi en CC."),
    # a limit's abbreviation in full (not 'Max.', a name); after a number 'min.' stays the minutes
    ("Au max. 4 personnes, 25 élèves max. par classe, min. 2 nuits et 5 min. d'attente.", "Au maximum quatre personnes, "
     "vingt-cinq élèves maximum par classe, minimum deux nuits et cinq minutes d'attente."),
    # half an hour written as a decimal is said as a half
    ("La séance dure 1,5 heure et le trajet 2,5 h.", "La séance dure une heure et demie et le trajet deux heures et demie."),
    # a number that names the noun before it counts none ('la ligne 1' un)
    ("La ligne 1 ferme et la salle 21 donne sur la cour.", "La ligne un ferme et la salle vingt-et-un donne sur la cour."),
    # a fitness abbreviation in full, but not in a club's name
    ("Gardez une FC entre 140 et 160 ; votre FC max est 190. Le FC Nantes a gagné.", "Gardez une fréquence "
     "cardiaque entre cent quarante et cent soixante ; votre fréquence cardiaque max est cent quatre-vingt-dix. "
     "Le FC Nantes a gagné."),
    # tens of cents unnamed and without 'et'; a number with a leading zero after 'n°' digit by digit
    ("Le café coûte 2,40 €, le menu 12,05 € et le vin 0,80 € ; dossier n° 0713, commande numéro 00891.",
     "Le café coûte deux euros quarante, le menu douze euros et cinq centimes et le vin quatre-vingts centimes ; "
     "dossier numéro zéro sept un trois, commande numéro zéro zéro huit neuf un."),
    # data rates in full; degrees without Celsius, as said
    ("La fibre offre 500 Mbit/s en descendant et 1 Gbit/s en montant ; il fait -4 °C.", "La fibre offre cinq cents "
     "mégabits par seconde en descendant et un gigabit par seconde en montant ; il fait moins quatre degrés."),
    # a day and month without zeros: a date after a date word or where the day is past 12, else a fraction
    ("Réservez avant le 28/2 ; fermé du 5/10 au 9/10.",
     "Réservez avant le vingt-huit février ; fermé du cinq octobre au neuf octobre."),
    ("Valable jusqu'au 21/3 ; ajoutez 1/2 litre, note 8/10.",
     "Valable jusqu'au vingt-et-un mars ; ajoutez un demi-litre, note huit sur dix."),
    ('Achetez 2,5 kg de pommes et 1,5 l de lait ; la balade fait 3,5 km.',
     'Achetez deux kilos et demi de pommes et un litre et demi de lait ; la balade fait trois kilomètres et demi.'),
    ('Votre dossier n° 4528 0761 est ouvert ; appelez le 0800 123 456.',
     'Votre dossier numéro quarante-cinq vingt-huit zéro sept soixante-et-un est ouvert ; appelez le zéro huit cents cent vingt-trois quatre cent cinquante-six.'),
    ('Les km parcourus sont facturés.',
     'Les kilomètres parcourus sont facturés.'),
    ('La ligne de 400 kV traverse la vallée.',
     'La ligne de quatre cents kilovolts traverse la vallée.'),
    ('Le moteur fait 45 dB et le code du bagage est CDGAF20931.',
     'Le moteur fait quarante-cinq décibels et le code du bagage est C D G A F deux zéro neuf trois un.'),
    # capitals are an acronym ('le PC' a computer, 'le CV' a résumé); 'CV' after a number is horsepower
    ('Branchez le PC, joignez le CV ; la voiture fait 7 CV.',
     'Branchez le PC, joignez le CV ; la voiture fait sept chevaux.'),
    # a price per kilo as said ('le kilo'); no article after 'par' ('par demi-heure'); 'zéro' counts a singular
    ('Les cerises à 7,80 €/kg, le parking 2 € par ½ heure, frais : 0 €.',
     'Les cerises à sept euros quatre-vingts le kilo, le parking deux euros par demi-heure, frais : zéro euro.'),
    # a match's sets in a list, one not rising or after a word of a match: its score, never ranges
    ("Elle a battu sa compatriote 7-6, 6-2 en huitièmes de finale.",
     "Elle a battu sa compatriote sept six, six deux en huitièmes de finale."),
    ("Ils ont perdu 4-6, 3-6 et 6-7 samedi.", "Ils ont perdu quatre six, trois six et six sept samedi."),
    # a spoon's abbreviation with its last word in full, feminine, plural after two
    ("Mélangez 3 c. à soupe de farine, 1 c. à café de vanille et ½ c. à café de sel.",
     "Mélangez trois cuillères à soupe de farine, une cuillère à café de vanille et une demi cuillère à café de sel."),
    # an engine written with a point is read as written ('1.5' un point cinq), not before a unit; 'ch' chevaux;
    # 'CT' contrôle technique, 'pers.' personne after 'par'
    ("Clio 1.5 dCi 90 ch, CT à faire dans 2 mois, 12 € par pers. pour le parking.",
     "Clio un point cinq dCi quatre-vingt-dix chevaux, contrôle technique à faire dans deux mois, douze euros par personne pour le "
     "parking."),
    ("Vends Twingo 1.2 essence, 1.5 l aux 100 km.", "Vends Twingo un point deux essence, un litre et demi aux cent kilomètres."),
    # a unit's symbol with no number before it is its noun: after an ordinal or 'au'; 'arr.' arrondissement
    ("Crevaison au 12e km, allure de 5 min 20 s au km ; hôtel dans le VIe arr., loyer au m² en hausse.",
     "Crevaison au douzième kilomètre, allure de cinq minutes vingt secondes au kilomètre ; hôtel dans le sixième "
     "arrondissement, loyer au mètre carré en hausse."),
    # abbreviated weekdays in a list, joined by commas and 'et', are all days
    ("Le marché a lieu mar., jeu. et sam. matin.", "Le marché a lieu mardi, jeudi et samedi matin."),
    # a Roman numeral after 'et' and one read is read as that one is
    ("Lisez les chapitres IX et X pour lundi.", "Lisez les chapitres neuf et dix pour lundi."),
    # a king's number joined to his name, as streets and schools are named: a cardinal
    ("Rendez-vous au lycée Louis-XIV, 5 place Charles-X.",
     "Rendez-vous au lycée Louis-quatorze, cinq place Charles-dix."),
    # 'ex.' exemple; 'incl.' in the gender and number of the noun before; 'kVA'; 'kg' kilos
    ("Un forfait de 9 kVA, par ex. avec 3 kg de bois, boissons incl.",
     "Un forfait de neuf kilovoltampères, par exemple avec trois kilos de bois, boissons incluses."),
    # a range of a clock time and a bare hour reads both ends as times, as two clock times are read
    ("Accueil de 7h30-9h, puis 16h-18h30.",
     "Accueil de sept heures trente à neuf heures, puis de seize heures à dix-huit heures trente."),
    # a flight's four digits in pairs; a year before a verb counts nothing ('2021 reste' deux mille vingt-et-un)
    ("Le vol AF 1092 part ; la cotisation 2021 reste due.",
     "Le vol A F dix quatre-vingt-douze part ; la cotisation deux mille vingt-et-un reste due."),
    # a code's word before a colon French writes with a space before it still names the number after it
    ("Code d'accès : 318 406, code PIN : 5521.", "Code d'accès : trois un huit quatre zéro six, code PIN : cinq cinq deux un."),
]


@pytest.mark.parametrize(("written", "spoken"), READINGS)
def test_reading(written: str, spoken: str) -> None:
    assert normalize(written, "fr") == spoken


@pytest.mark.parametrize(("written", "spoken"), READINGS)
def test_stream_equals_one_shot(written: str, spoken: str) -> None:
    assert_stream_equals_one_shot(written, "fr")


def test_no_digits_left() -> None:
    for written, _ in READINGS:
        assert not re.search(r"\d", normalize(written, "fr"))


FRAGMENTS = [
    "1", "3", "25", "6 492", " 000", "25,50", "1er", "2e", "XXe", "14h30", "9:05", "9h–19h", "2–4", " jours", "1/2", "-", "+33 ", "01 23",
    " ", ".", ",", " €", "€", "$", " %", "%", " kg", " km/h", " °C", "°", " mai", " juin", "les ", " 80s", "n°",
    "etc.", "Mme", "M.", "a@b.fr", "www.", "\n", "1. ", "x", " milliards",
    " h/24", "7 j/7", " av. J.-C.", "chap. ", "III", "FC ", " Nantes",
]


@pytest.mark.parametrize("seed", range(3))
def test_random_fragments_stream_equals_one_shot(seed: int) -> None:
    for text in fragment_texts(FRAGMENTS, 60, seed):
        assert_stream_equals_one_shot(text, "fr", range(4))
