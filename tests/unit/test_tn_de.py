"""German normalization (voice_tts.tn.locales.de): readings per class, stream = one-shot, offsets."""

from __future__ import annotations

import re

import pytest
from tn_locale_checks import assert_stream_equals_one_shot, assert_tiles, fragment_texts, streamed

from voice_tts.tn import normalize

READINGS = [
    # a number over a smaller one is a reference (a court's file), no share
    ("Ihr Aktenzeichen lautet 3 C 712/25.", "Ihr Aktenzeichen lautet drei C siebenhundertzwölf Strich fünfundzwanzig."),
    # a running pace after its slash: minutes and seconds per kilometer, the seconds unnamed as Germans say a pace
    ("Im Training lief sie 4:05/km, danach 4'48\"/km und am Ende 3:59 min/km.",
     "Im Training lief sie vier Minuten fünf pro Kilometer, danach vier Minuten achtundvierzig pro Kilometer und am "
     "Ende drei Minuten neunundfünfzig pro Kilometer."),
    # 'lfd. m' between a count and its unit: laufende Meter
    ("Wir verlegen 8 lfd. m Sockelleiste.", "Wir verlegen acht laufende Meter Sockelleiste."),
    ("Danach surfen Sie mit 64 kbps statt 50 Mbps.",
     "Danach surfen Sie mit vierundsechzig Kilobit pro Sekunde statt fünfzig Megabit pro Sekunde."),
    # a Roman numeral closing a quoted title is a sequel's number; a ruler's stays an ordinal
    ("Wir zeigen „Rocky III“ und einen Film über Friedrich II.", "Wir zeigen „Rocky drei“ und einen Film über Friedrich den Zweiten."),
    # a list member's size or price after 'à' or 'je' leaves the list's case to its next count
    ("Mit 4 Flaschen à 0,7 l und 1 Korkenzieher.", "Mit vier Flaschen à null Komma sieben Liter und einem Korkenzieher."),
    # 'Ø' before a size is its diameter; '<' and '>' before a number unter, über; 'USD' US-Dollar; 'rd.' rund
    ("Rohr Ø 40 mm, Druck < 6 bar, Preis rd. 80 USD.", "Rohr Durchmesser vierzig Millimeter, Druck unter sechs Bar, Preis rund achtzig US-Dollar."),
    # a time with seconds and no clock word is a race's, a duration in the case of its preposition; a pace's minutes
    ("Sie kam nach 3:04:09 ins Ziel, mit 4:22 min/km.",
     "Sie kam nach drei Stunden, vier Minuten und neun Sekunden ins Ziel, mit vier Minuten zweiundzwanzig pro "
     "Kilometer."),
    # cardinals, signs, grouped thousands
    ("Wir haben 10.000 Kunden.", "Wir haben zehntausend Kunden."),
    # a plate of digits, capitals and digits sign by sign
    ("Kennzeichen 8ABC123 notiert.", "Kennzeichen acht A B C eins zwei drei notiert."),
    ("Es waren -12 Grad.", "Es waren minus zwölf Grad."),
    # inside a sentence "hundert", "tausend" as speakers say them; a number alone in full
    ("Zimmer 1026", "Zimmer tausendsechsundzwanzig"),
    ("1100", "eintausendeinhundert"),
    # a percent sign written against the number reads as one after a space does
    ("Plus 12,5% und 7%.", "Plus zwölf Komma fünf Prozent und sieben Prozent."),
    # ordinals: the ending follows the word before, a period that ends the sentence stays one
    ("Der 2. Platz", "Der zweite Platz"),
    ("Sie kam am 3. Tag.", "Sie kam am dritten Tag."),
    ("Das kostet 3. Dann gehen wir.", "Das kostet drei. Dann gehen wir."),
    ("Das ist sein 21ter Geburtstag", "Das ist sein einundzwanzigster Geburtstag"),
    # decimals and percent
    ("Der Wert ist 3,75.", "Der Wert ist drei Komma sieben fünf."),
    ("Ein Plus von 12,5 %", "Ein Plus von zwölf Komma fünf Prozent"),
    # money: symbol after and before, codes, scale words; inside a sentence the minor unit unnamed, as
    # speakers say it; an amount alone, with a few cents or with no main unit names it
    ("Ihre Bestellung kostet 25,50 € und kommt am 3. Mai.",
     "Ihre Bestellung kostet fünfundzwanzig Euro fünfzig und kommt am dritten Mai."),
    ("Nur €1,01!", "Nur ein Euro ein Cent!"),
    ("€2,20", "zwei Euro zwanzig Cent"),
    ("Sie zahlen 12,50 CHF, danach 3,99 £ im Monat.",
     "Sie zahlen zwölf Franken fünfzig, danach drei Pfund neunundneunzig im Monat."),
    ("Das sind 40 EUR.", "Das sind vierzig Euro."),
    ("Umsatz: 1,5 Mio. Euro", "Umsatz: eins Komma fünf Millionen Euro"),
    ("Ein Ticket kostet $0,99.", "Ein Ticket kostet neunundneunzig Cent."),
    # dates
    ("Geboren am 02.03.1987", "Geboren am zweiten März neunzehnhundertsiebenundachtzig"),
    ("Ab dem 15. Juli 2025 gilt das.", "Ab dem fünfzehnten Juli zweitausendfünfundzwanzig gilt das."),
    ("Im Jahr 1989 fiel die Mauer.", "Im Jahr neunzehnhundertneunundachtzig fiel die Mauer."),
    ("Frist: 2026-01-31", "Frist: einunddreißigster Januar zweitausendsechsundzwanzig"),
    # a counted "1": the noun's gender, the case of the preposition before or the adjective's ending after it
    ("Sie haben 1 neue Nachricht und 1 verpassten Anruf.", "Sie haben eine neue Nachricht und einen verpassten Anruf."),
    ("Es gibt 1 freies Zimmer und 1 freien Parkplatz.", "Es gibt ein freies Zimmer und einen freien Parkplatz."),
    ("Das Paket kam mit 1 neuen Rechnung.", "Das Paket kam mit einer neuen Rechnung."),
    ("Er wartet seit 1 langen Stunde, 1 großer Tisch ist frei.",
     "Er wartet seit einer langen Stunde, ein großer Tisch ist frei."),
    # past a place's adjective, which never declines, to the noun it describes; not past a measure noun
    ("Zum Kaffee gibt es 1 Frankfurter Kranz, mit 1 Thüringer Bratwurst und 1 Eimer Wasser, abzgl. Pfand.",
     "Zum Kaffee gibt es einen Frankfurter Kranz, mit einer Thüringer Bratwurst und einem Eimer Wasser, abzüglich Pfand."),
    # the case a verb gives its object, past a pronoun, and a list's first number gives the others;
    # an adjective ending in -er, -es or -e shows the nominative
    ("Als Entschädigung erhalten Sie 1 Gutschein über 20 €, 1 Getränk und 1 Flasche Wein.",
     "Als Entschädigung erhalten Sie einen Gutschein über zwanzig Euro, ein Getränk und eine Flasche Wein."),
    ("Ihr Zimmer mit 1 Doppelbett, 1 Balkon und 1 Badewanne liegt im 4. Stock, in 1 Stunde ist es frei.",
     "Ihr Zimmer mit einem Doppelbett, einem Balkon und einer Badewanne liegt im vierten Stock, in einer Stunde ist "
     "es frei."),
    # an ordinal's ending with no article before it: the case and the noun's gender; a list's first ordinal's
    ("Wir feiern sein 40. Jubiläum, ein 2. Platz, Sie sind an 3. Stelle, am 3. und 4. Mai.",
     "Wir feiern sein vierzigstes Jubiläum, ein zweiter Platz, Sie sind an dritter Stelle, am dritten und vierten "
     "Mai."),
    ("Wir treffen uns um 3. Danach essen wir.", "Wir treffen uns um drei. Danach essen wir."),
    # a hedge between the preposition and the number keeps the preposition's case
    ("Die Gutschrift folgt in ca. 1 Woche, nach knapp 1 Stunde und mit nur 1 Klick.",
     "Die Gutschrift folgt in circa einer Woche, nach knapp einer Stunde und mit nur einem Klick."),
    ("Der Zinssatz beträgt 2,75 % p. a.", "Der Zinssatz beträgt zwei Komma sieben fünf Prozent pro Jahr."),
    # 'Sie' after a verb is no noun the number counts: the number is a label
    ("Unter Punkt 1 finden Sie alles, in Schritt 1 öffnen Sie die App.",
     "Unter Punkt eins finden Sie alles, in Schritt eins öffnen Sie die App."),
    # a ruler's number in the case the preposition or article before the name (and its titles) gives
    ("Das Hotel liegt neben dem Schloss von Ludwig II.", "Das Hotel liegt neben dem Schloss von Ludwig dem Zweiten."),
    ("Die Oper wurde für Ludwig II. geschrieben.", "Die Oper wurde für Ludwig den Zweiten geschrieben."),
    ("Mit Kaiser Karl V. endete das, Friedrich II. regierte lange.",
     "Mit Kaiser Karl dem Fünften endete das, Friedrich der Zweite regierte lange."),
    ("Unter Elisabeth I. blühte England.", "Unter Elisabeth der Ersten blühte England."),
    ("Das Erbe des Königs Ludwig XIV. ist groß.", "Das Erbe des Königs Ludwig des Vierzehnten ist groß."),
    # times
    ("Treffen um 14:30 Uhr.", "Treffen um vierzehn Uhr dreißig."),
    ("Um 9.15 Uhr", "Um neun Uhr fünfzehn"),
    ("Start 1 Uhr", "Start ein Uhr"),
    # measures and fractions
    ("Das Paket wiegt 2,5 kg.", "Das Paket wiegt zwei Komma fünf Kilogramm."),
    ("Bei -3 °C und 120 km/h", "Bei minus drei Grad Celsius und hundertzwanzig Kilometer pro Stunde"),
    ("Eine Wohnung mit 80 m²", "Eine Wohnung mit achtzig Quadratmetern"),  # the dative plural's -n, ending its phrase
    ("Noch 3/4 übrig und 2 1/2 Stunden", "Noch drei viertel übrig und zweieinhalb Stunden"),
    # telephone numbers
    ("Rufen Sie +49 30 1234567 an.",
     "Rufen Sie plus neunundvierzig drei null eins zwei drei vier fünf sechs sieben an."),
    ("Tel. (030) 123-45", "Telefon null drei null eins zwei drei vier fünf"),
    # electronic addresses
    ("Mail an info@firma.de.", "Mail an info at firma Punkt d e."),
    ("Siehe https://www.abc.com/hilfe",
     "Siehe h t t p s Doppelpunkt Slash Slash w w w Punkt a b c Punkt com Slash hilfe"),
    # abbreviations
    ("Obst, z.B. Äpfel, bzw. Birnen", "Obst, zum Beispiel Äpfel, beziehungsweise Birnen"),
    ("Dr. Weber wohnt in der Hauptstr. Nr. 5", "Doktor Weber wohnt in der Hauptstraße Nummer fünf"),
    # a Roman numeral after a compound whose head is a chapter or room word is a number
    ("Die Klausur ist neben Hörsaal III, die Übung im Seminarraum II; Sie haben Pflegestufe II.",
     "Die Klausur ist neben Hörsaal drei, die Übung im Seminarraum zwei; Sie haben Pflegestufe zwei."),
    # a semester, school year or season: both years; 'WS', 'SS' a semester before a number only
    ("Im WS 2026/27 oder im SS 2027, SoSe 2027; Schuljahr 2025/26.", "Im Wintersemester zweitausendsechsundzwanzig siebenundzwanzig "
     "oder im Sommersemester zweitausendsiebenundzwanzig, Sommersemester zweitausendsiebenundzwanzig; Schuljahr "
     "zweitausendfünfundzwanzig sechsundzwanzig."),
    # a number with '-er' is a word of its own
    ("Sie brauchen 8er-Dübel, ein 6er-Pack und die Musik der 90er.",
     "Sie brauchen Achter-Dübel, ein Sechser-Pack und die Musik der Neunziger."),
    # a room's or a section's dotted number, part by part
    ("Wir sind in Raum 2.14, siehe Kapitel 3.2.", "Wir sind in Raum zwei Punkt vierzehn, siehe Kapitel drei Punkt zwei."),
    # a train or bus line: its letters, then its number
    ("Die S1 fährt ab Gleis 3, die U2 und der RE5 nicht.", "Die S eins fährt ab Gleis drei, die U zwei und der R E fünf nicht."),
    # an abbreviation after a hyphen ends its compound; the labels of a building, an order, a shop
    ("Geb. B, Pos. 3 der Art.-Nr. 4821 und Ihre Kd.-Nr. bitte", "Gebäude B, Position drei der Artikelnummer "
     "viertausendachthunderteinundzwanzig und Ihre Kundennummer bitte"),
    ("Wir sind in der Karl-Marx-Str. 12a, nahe Berlin-Hbf., Service-Tel. 030 123456.", "Wir sind in der Karl-Marx-Straße "
     "zwölf a, nahe Berlin-Hauptbahnhof, Service-Telefon null drei null eins zwei drei vier fünf sechs."),
    # units, currencies and abbreviations of the German NeMo data
    ("Ein 5 kw Motor mit 220 v, 40 dB und 2 oz.", "Ein fünf Kilowatt Motor mit zweihundertzwanzig Volt, vierzig Dezibel "
     "und zwei Unzen."),
    ("Das kostet 100 NOK, 1 DKK oder 5 CAD.", "Das kostet hundert norwegische Kronen, eine dänische Krone oder "
     "fünf kanadische Dollar."),
    ("Laut Hrsg. gilt i.d.R. mind. Art. 3 Abs. 2, s.o.", "Laut Herausgeber gilt in der Regel mindestens Artikel drei "
     "Absatz zwei, siehe oben."),
    # a card's last digits, a reference, a range's unit, floors, a law's Roman number, a modal's object
    ("Die Karte, die auf 4821 endet, ist gesperrt; Aktenzeichen KV-3817.", "Die Karte, die auf vier acht zwei eins "
     "endet, ist gesperrt; Aktenzeichen K V drei acht eins sieben."),
    ("Ihr Schaden KH-2026-00481, Auftrag AB-12-7731-C und Code H4829.", "Ihr Schaden K H zwei null zwei sechs null null "
     "vier acht eins, Auftrag A B eins zwei sieben sieben drei eins C und Code H vier acht zwei neun."),
    ("Ihre Sendung RR987654321DE ist unterwegs.",  # a parcel's code, its country's capitals after the digits
     "Ihre Sendung R R neun acht sieben sechs fünf vier drei zwei eins D E ist unterwegs."),
    # an abbreviated unit after a word that counts one, also past its adjective: singular
    ("Jede angefangene Std. kostet 2,50 €, eine halbe Std. mehr, weitere Std. folgen.",
     "Jede angefangene Stunde kostet zwei Euro fünfzig, eine halbe Stunde mehr, weitere Stunden folgen."),
    # a unit symbol with no number after a word that counts one, also past its adjective: singular, in full
    ("Das erste kg ist frei, für jeden weiteren km zahlen Sie 0,40 € und je angefangene kWh 0,35 €.",
     "Das erste Kilogramm ist frei, für jeden weiteren Kilometer zahlen Sie vierzig Cent und je angefangene "
     "Kilowattstunde fünfunddreißig Cent."),
    # a unit inside a compound after a number other than one: plural
    ("Ein 12-t-LKW und ein 7,5-t-LKW.", "Ein zwölf-Tonnen-LKW und ein sieben Komma fünf-Tonnen-LKW."),
    # an optician's unit
    ("Linsen mit -2,75 dpt, 1 dpt und 3 dpt.", "Linsen mit minus zwei Komma sieben fünf Dioptrien, eine Dioptrie und drei Dioptrien."),
    ("Lagern bei 2–8 °C im 3. OG, nach SGB II.", "Lagern bei zwei bis acht Grad Celsius im dritten Obergeschoss, "
     "nach S G B zwei."),
    ("Sie dürfen 1 Hund und 1 Koffer mitnehmen.", "Sie dürfen einen Hund und einen Koffer mitnehmen."),
    # a code a code word names a few words before it, by its digits (its groups too; a year after 'von' stays one)
    ("Ihr Sicherheitscode lautet 739 214, die PIN: 0852; das Gesetz von 1995.", "Ihr Sicherheitscode lautet sieben drei "
     "neun zwei eins vier, die PIN: null acht fünf zwei; das Gesetz von neunzehnhundertfünfundneunzig."),
    # units CLDR lacks (a small table), CLDR's concentrations, a dose per an amount, dimensions, inches, a mark out of its top
    ("Kreatinin bei 88 µmol/l, Ferritin bei 320 pg/ml, Glukose bei 5,4 mmol/L.", "Kreatinin bei achtundachtzig Mikromol pro "
     "Liter, Ferritin bei dreihundertzwanzig Pikogramm pro Milliliter, Glukose bei fünf Komma vier Millimol pro Liter."),
    ("Der Akku hat 4500 mAh, der Motor dreht mit 1200 U/min; Saft 250 mg/5 ml.", "Der Akku hat viertausendfünfhundert "
     "Milliamperestunden, der Motor dreht mit tausendzweihundert Umdrehungen pro Minute; Saft zweihundertfünfzig "
     "Milligramm pro fünf Milliliter."),
    ("Die Fliesen messen 30×60cm, der Tisch 80 x 120 cm, der Monitor hat 27\".", "Die Fliesen messen dreißig mal sechzig "
     "Zentimeter, der Tisch achtzig mal hundertzwanzig Zentimeter, der Monitor hat siebenundzwanzig Zoll."),
    ("Das Paket misst 60 x 40 x 35 cm, die Kiste 1,2×0,8×0,5 m.", "Das Paket misst sechzig mal vierzig mal fünfunddreißig "
     "Zentimeter, die Kiste eins Komma zwei mal null Komma acht mal null Komma fünf Meter."),
    ("Ihr Zug erreicht in KW 23 den Köln Hbf auf Gl. 7; Abt. Kundenservice, z. Hd. Frau Lang.", "Ihr Zug erreicht in "
     "Kalenderwoche dreiundzwanzig den Köln Hauptbahnhof auf Gleis sieben; Abteilung Kundenservice, zu Händen Frau Lang."),
    ("Ihre Sendungsnummer lautet 3391 0457, die Kundennummer 77 0812.", "Ihre Sendungsnummer lautet drei drei neun eins null vier "
     "fünf sieben, die Kundennummer sieben sieben null acht eins zwei."),
    ("Rufen Sie 0711 / 98 76 54-3 an, nachts 030 / 22 33 44.", "Rufen Sie null sieben eins eins neun acht sieben sechs fünf "
     "vier drei an, nachts null drei null zwei zwei drei drei vier vier."),
    ("Das Zimmer ist vom 3.–6. Mai frei, der Kurs läuft vom 12.-15.08.; die 1.–3. Klasse fährt mit.", "Das Zimmer ist vom "
     "dritten bis sechsten Mai frei, der Kurs läuft vom zwölften bis fünfzehnten August; die erste bis dritte Klasse fährt mit."),
    ("Das Angebot gilt für 1 Nacht oder 4 Nächte.", "Das Angebot gilt für eine Nacht oder vier Nächte."),
    ("Der Tank ist zu ¾ voll, die Rechnung zu ⅔ bezahlt; ¾ sind fertig.", "Der Tank ist zu drei Vierteln voll, die Rechnung zu zwei "
     "Dritteln bezahlt; drei Viertel sind fertig."),
    # a share with no noun of its own is the noun ('nach ⅓ der Strecke' einem Drittel, '½ der Kosten' die Hälfte); a ruler's
    # number after a genitive -s, an abbreviated noun after 'des' and its number in the genitive
    ("Nach ⅓ der Strecke zahlen 2 Pers. nur ½ der Kosten.", "Nach einem Drittel der Strecke zahlen zwei Personen nur die Hälfte der Kosten."),
    ("Die Krönung Karls V. fiel in die Mitte des 16. Jh. und prägte den Beginn des 3. Jt. nicht.",
     "Die Krönung Karls des Fünften fiel in die Mitte des sechzehnten Jahrhunderts und prägte den Beginn des dritten Jahrtausends nicht."),
    ("Geöffnet von Mo. bis Fr., Sa.–So. geschlossen.", "Geöffnet von Montag bis Freitag, Samstag bis Sonntag geschlossen."),
    ("Sie hat 18/20 Punkten und 95/100 erreicht.", "Sie hat achtzehn von zwanzig Punkten und fünfundneunzig von hundert erreicht."),
    # a unit between a number and its noun by its name, a lower-case ending joined to its number
    ("Die 2-TB-SSD und ein 5-kg-Sack, dazu ein 3-fach-Stecker.", "Die zwei-Terabyte-SSD und ein fünf-Kilogramm-Sack, dazu ein dreifach-Stecker."),
    ("Er verbraucht 3 kWh/Tag.", "Er verbraucht drei Kilowattstunden pro Tag."),
    ("Er hat 45/50 Punkten, die Schraube misst 3/16 Zoll.", "Er hat fünfundvierzig von fünfzig Punkten, die Schraube misst drei sechzehntel Zoll."),
    ("Das Rohr misst 3/4\", dazu 1000 I.E. Vitamin D und 150 mcg Jod; Puls 72 bpm.", "Das Rohr misst drei viertel Zoll, "
     "dazu tausend internationale Einheiten Vitamin D und hundertfünfzig Mikrogramm Jod; Puls zweiundsiebzig Schläge pro Minute."),
    # a compound ending in 'nr.' is its number; a code after it digit by digit ('31-0472': no range ends in a leading zero)
    ("Ihre Kundennr. lautet 31-0472, die Auftragsnr. 5520 0917 13.", "Ihre Kundennummer lautet drei eins null vier sieben zwei, "
     "die Auftragsnummer fünf fünf zwei null null neun eins sieben eins drei."),
    # a postcode after a comma before its place, whatever the house number
    ("Bitte senden Sie die Unterlagen an Bergweg 3b, 80331 München, bis Freitag.", "Bitte senden Sie die Unterlagen an Bergweg drei b, "
     "acht null drei drei eins München, bis Freitag."),
    # a half in the gender of the noun or unit after it and the case of the word before
    ("Lösen Sie ½ Tablette in ½ l Wasser auf und trinken Sie ½ Glas davon.", "Lösen Sie eine halbe Tablette in einem halben Liter "
     "Wasser auf und trinken Sie ein halbes Glas davon."),
    ("Das Training dauert 1,5 Std., das Tablet hat 8 GB RAM und einen Akku mit 40 Wh; wir kommen zw. 9 und 11 Uhr.", "Das Training "
     "dauert eineinhalb Stunden, das Tablet hat acht Gigabyte RAM und einen Akku mit vierzig Wattstunden; wir kommen zwischen neun und elf Uhr."),
    # statutes written in mixed case by their names (those in capitals spelled); a number after a label stays eins
    ("Nach § 3 Nr. 26 EStG und § 14 UStG, Art. 3 GG sowie § 1 Abs. 1 BGB gilt das.", "Nach Paragraf drei Nummer sechsundzwanzig "
     "Einkommensteuergesetz und Paragraf vierzehn Umsatzsteuergesetz, Artikel drei Grundgesetz sowie Paragraf eins Absatz eins B G B gilt das."),
    ("Heute bleibt 1 Stunde Wartezeit, Zimmer 1 hat 1 Bett.", "Heute bleibt eine Stunde Wartezeit, Zimmer eins hat ein Bett."),
    # a compound ending in 'nr.' names a reference as 'Nr.' does: its digits one by one
    ("Ihre Bestellnr. 48-3301 ist unterwegs, die Kundennr. 58302 bleibt.", "Ihre Bestellnummer vier acht drei drei null eins ist "
     "unterwegs, die Kundennummer fünf acht drei null zwei bleibt."),
    # so does a compound ending in 'nummer', also with 'ist' or 'lautet' between; four digits stay a number
    ("Ihre Buchungsnummer ist 582130, die Vorgangsnr. lautet 583021, die Rechnungsnummer 4711.", "Ihre Buchungsnummer ist fünf "
     "acht zwei eins drei null, die Vorgangsnummer lautet fünf acht drei null zwei eins, die Rechnungsnummer viertausendsiebenhundertelf."),
    # a range of numbers grouped by thousands, no dot read as part of a word
    ("Es kommen 1.000-2.000 Besucher.", "Es kommen tausend bis zweitausend Besucher."),
    ("Die Miete liegt bei 1.500–2.000 € im Monat.", "Die Miete liegt bei tausendfünfhundert bis zweitausend Euro im Monat."),
    ("Nehmen Sie 2 ½ Tassen Mehl.", "Nehmen Sie zweieinhalb Tassen Mehl."),
    # a whole number and its quarters are one word, as its half is
    ("Der Teig ruht 1¼ Std., der Braten gart 3¾ Stunden.",
     "Der Teig ruht eineinviertel Stunden, der Braten gart dreidreiviertel Stunden."),
    # a colon before one digit is no time: a score or ratio, with or without a word that names a match
    ("Augsburg gewann am 12. Spieltag 4:2, im Maßstab 1:5 um 9:05.",
     "Augsburg gewann am zwölften Spieltag vier zu zwei, im Maßstab eins zu fünf um neun Uhr fünf."),
    # a Roman numeral after a room's noun, abbreviated or not, is its number; after a ruler's name his ordinal
    ("Die Anmeldung ist in Abt. III, Saal II; Karl V. regierte lange.", "Die Anmeldung ist in Abteilung drei, Saal zwei; Karl der Fünfte regierte lange."),
    # a range of Roman numerals after an abbreviated chapter word is numbers, as after the word in full
    ("Lesen Sie Kap. II–IV bis Freitag.", "Lesen Sie Kapitel zwei bis vier bis Freitag."),
    # after 'pro' an abbreviated unit is one
    ("Das Parken kostet 3 € pro Std., das Telefonat 12 Cent pro Min.", "Das Parken kostet drei Euro pro Stunde, das Telefonat zwölf Cent pro Minute."),
    # a price with ',–' or ',-' is whole euros
    ("Das Rad kostet 1.199,– € statt 1.349,- €.", "Das Rad kostet tausendeinhundertneunundneunzig Euro statt tausenddreihundertneunundvierzig Euro."),
    # one measure after a subject and its verb is in the accusative, past adverbs, hedges and 'bzw.'
    ("Nehmen Sie 20 Tropfen bzw. ca. 1 ml ein, trinken Sie täglich 1 l Wasser.",
     "Nehmen Sie zwanzig Tropfen beziehungsweise circa einen Milliliter ein, trinken Sie täglich einen Liter Wasser."),
    ("Wenn Sie 1 km laufen, sind das insg. 2 Std.", "Wenn Sie einen Kilometer laufen, sind das insgesamt zwei Stunden."),
    # a number joined to nouns by hyphens keeps its hyphens, as most write it out
    ("Die 3-Zimmer-Wohnung im 4-Sterne-Hotel, 2-Faktor-Authentifizierung, ein 11-Zoll-Display, 1-Euro-Jobs.",
     "Die Drei-Zimmer-Wohnung im Vier-Sterne-Hotel, Zwei-Faktor-Authentifizierung, ein Elf-Zoll-Display, Ein-Euro-Jobs."),
    ("Der 7-Tage-Pass für die 100-Meter-Bahn.", "Der Sieben-Tage-Pass für die Hundert-Meter-Bahn."),
    # 'und' between two adverbs joins them, no list: the case of a number before them does not go on
    ("Mit 3 kg Futter bekommt Rex mittags und abends 1 Kapsel.", "Mit drei Kilogramm Futter bekommt Rex mittags und "
     "abends eine Kapsel."),
    # a share written with a slash after a dative cue reads as '¾' does; a score stays 'von'
    ("Das Fass ist zu 3/4 gefüllt, mit 1/3 der Stimmen und bei 9/10 Punkten.", "Das Fass ist zu drei Vierteln gefüllt, "
     "mit einem Drittel der Stimmen und bei neun von zehn Punkten."),
    # a pickup number is a code, digit by digit; kWp one word
    ("Ihre Abholnummer ist 2931, das Dach hat 8,5 kWp.", "Ihre Abholnummer ist zwei neun drei eins, das Dach hat acht "
     "Komma fünf Kilowattpeak."),
    # a half after an article or its adjective takes no 'ein' of its own
    ("Nach einer ½ Stunde kostet jede weitere ½ Std. 28 €, seit ½ Stunde die ½ Portion.",
     "Nach einer halben Stunde kostet jede weitere halbe Stunde achtundzwanzig Euro, seit einer halben Stunde die halbe Portion."),
    # a voucher's word and number read as a word and a number
    ("Mit dem Code WINTER10 oder SOMMER25 sparen Sie.", "Mit dem Code Winter zehn oder Sommer fünfundzwanzig sparen Sie."),
    # capitals, a hyphen and mixed runs of digits and capitals sign by sign
    ("Kleben Sie den Code RT-7Q42X auf, Referenz KX-12B4.",
     "Kleben Sie den Code R T sieben Q zweiundvierzig X auf, Referenz K X zwölf B vier."),
    ("Ihre Kunden-Nr. ist 583021, Art.-Nr. 48213.", "Ihre Kunden-Nummer ist fünf acht drei null zwei eins, Artikelnummer vier acht zwei eins drei."),
    ("Ihre PIN – 4821, der Preis – 25 €.", "Ihre PIN – vier acht zwei eins, der Preis – fünfundzwanzig Euro."),
    # an ordinal after a feminine noun's 'der' is in the dative or genitive, also before an abbreviated noun
    ("Die Wohnung liegt in der 3. Etg., am Ende der 2. Woche; der 1. Versuch.",
     "Die Wohnung liegt in der dritten Etage, am Ende der zweiten Woche; der erste Versuch."),
    # a car's plate and a code after its number word: letters spelled, digits one by one
    ("Das Kennzeichen M-AB 4521 und B-MW 123E, Sendung Nr. DE4719, Ihr Buchungscode lautet XK48213.",
     "Das Kennzeichen M A B vier fünf zwei eins und B M W eins zwei drei E, Sendung Nummer D E vier sieben eins neun, "
     "Ihr Buchungscode lautet X K vier acht zwei eins drei."),
    # a pack's abbreviated count noun in full; a case's reference with its slash said as 'Strich' (a fraction stays one)
    ("Packung mit 20 Kps., dazu 1 Amp. und 3 Pkg. zu je 50 Tbl.; Az. 12/2025 und Nr. 77/24, dann 3/4 Liter.",
     "Packung mit zwanzig Kapseln, dazu eine Ampulle und drei Packungen zu je fünfzig Tabletten; Aktenzeichen zwölf Strich "
     "zweitausendfünfundzwanzig und Nummer siebenundsiebzig Strich vierundzwanzig, dann drei viertel Liter."),
    # an abbreviated adjective before its noun takes the noun's ending
    ("Ein jährl. Beitrag und eine wöchentl. Lieferung, mit tägl. Reinigung und einem mtl. Abschlag.",
     "Ein jährlicher Beitrag und eine wöchentliche Lieferung, mit täglicher Reinigung und einem monatlichen Abschlag."),
    # an owner's genitive before a numbered noun makes the number an ordinal; a ruler's stays his number
    ("Wir hören Mahlers V. Sinfonie und Haydns 2. Konzert nach Bachs 3. Suite, im Schloss Ludwigs II. in Bayern.",
     "Wir hören Mahlers fünfte Sinfonie und Haydns zweites Konzert nach Bachs dritter Suite, im Schloss Ludwigs des "
     "Zweiten in Bayern."),
    # the last digits of an account or card one by one; a unit inside a compound
    ("Die Karte mit der Endung 0815 und die letzten vier Ziffern 2290 passen zum 20-kV-Kabel.",
     "Die Karte mit der Endung null acht eins fünf und die letzten vier Ziffern zwei zwei neun null passen zum "
     "zwanzig-Kilovolt-Kabel."),
    # a bottle's count noun and a vintage abbreviated; a Roman numeral after a course's name is its number, a ruler's his
    ("Wir liefern 12 Fl. Sekt vom Jg. 2021, die Vorlesung Lineare Algebra I beginnt um 8 Uhr, Papst Leo XIII. segnete sie.",
     "Wir liefern zwölf Flaschen Sekt vom Jahrgang zweitausendeinundzwanzig, die Vorlesung Lineare Algebra eins beginnt um "
     "acht Uhr, Papst Leo der Dreizehnte segnete sie."),
    # 'tgl.' täglich, one bottle in the case before it; up to five capitals before the digits are a code read sign by sign
    ("Das Gerät ist mit 35 dB leise, trinken Sie tgl. 1 Fl. Wasser; Ihr Gepäckcode lautet MUCLH7720.",
     "Das Gerät ist mit fünfunddreißig Dezibel leise, trinken Sie täglich eine Flasche Wasser; Ihr Gepäckcode lautet "
     "M U C L H sieben sieben zwei null."),
    # a match's sets in a list, one not rising or after a word of a match: its score, never ranges; a rising list stays
    # ranges
    ("Sie setzte sich 6-2, 4-6, 7-5 durch; geöffnet ist 9-12 und 14-18 Uhr.",
     "Sie setzte sich sechs zu zwei, vier zu sechs, sieben zu fünf durch; geöffnet ist neun bis zwölf und vierzehn bis "
     "achtzehn Uhr."),
    ("Das Doppel verlor 4:6, 3:6 gegen die Titelverteidiger.",
     "Das Doppel verlor vier zu sechs, drei zu sechs gegen die Titelverteidiger."),
    # 'v. Chr.', 'n. Chr.' spaced or not; the period of the last also ends the sentence
    ("Die Fibeln stammen aus dem 1. Jh. v. Chr., die Münze aus dem Jahr 312 n.Chr. und das Lager bestand bis 260 n. Chr.",
     "Die Fibeln stammen aus dem ersten Jahrhundert vor Christus, die Münze aus dem Jahr dreihundertzwölf nach Christus und "
     "das Lager bestand bis zweihundertsechzig nach Christus."),
    # 'St.' after a count is Stück (no stone), 'p. P.' pro Person, 'EUSt' Einfuhrumsatzsteuer
    ("Wir liefern 250 St. Dübel; das Essen kostet 12 € p. P. zzgl. 19 % EUSt.",
     "Wir liefern zweihundertfünfzig Stück Dübel; das Essen kostet zwölf Euro pro Person zuzüglich neunzehn Prozent "
     "Einfuhrumsatzsteuer."),
    # an ordinal before a floor's abbreviation in the floor's gender, with no article ('4. OG' viertes Obergeschoss)
    ("Lage: 4. OG, Aufzug, Keller im 1. UG.", "Lage: viertes Obergeschoss, Aufzug, Keller im ersten Untergeschoss."),
    # a date's closing period goes before ':' as before ','; a time followed by its hour unit is a duration, the unit read
    # once, one measure without the pauses of a list
    ("Stand am 30.06.: 1.204 kWh; die Runde dauerte 1:05 Std., der Lauf 3:12:40 h.",
     "Stand am dreißigsten Juni: tausendzweihundertvier Kilowattstunden; die Runde dauerte eine Stunde und fünf Minuten, "
     "der Lauf drei Stunden zwölf Minuten und vierzig Sekunden."),
    # a plus sign before a number is read, as a minus is
    ("Umsatz gestiegen (+4,2 %), Kosten gesunken (-1,5 %).",
     "Umsatz gestiegen (plus vier Komma zwei Prozent), Kosten gesunken (minus eins Komma fünf Prozent)."),
    # a race's time in primes (hours 'h', minutes ', seconds "): its parts named, no inches
    ("Sie siegte in 1h58'07\" vor einer Läuferin mit 59'40\".",
     "Sie siegte in einer Stunde, achtundfünfzig Minuten und sieben Sekunden vor einer Läuferin mit neunundfünfzig "
     "Minuten und vierzig Sekunden."),
    # a score joined to its noun is one word with it; a flight's four digits in pairs; a gate's letter, then its number
    ("Nach dem 3:0-Erfolg fliegt das Team mit EW 9463 ab Flugsteig C15, die Reserve im Flug LX 318.",
     "Nach dem Drei-zu-null-Erfolg fliegt das Team mit E W vierundneunzig dreiundsechzig ab Flugsteig C fünfzehn, "
     "die Reserve im Flug L X dreihundertachtzehn."),
    # a pair of years in brackets after a name, a life or a reign: years ('siebzehnhundert…'), no amounts
    ("Das Museum zeigt Briefe Maria Theresias (1717–1780) und Bilder von Dürer (1471-1528).",
     "Das Museum zeigt Briefe Maria Theresias (siebzehnhundertsiebzehn bis siebzehnhundertachtzig) und Bilder von Dürer "
     "(vierzehnhunderteinundsiebzig bis fünfzehnhundertachtundzwanzig)."),
    # a postcode after a word of place before its town, digit by digit (a count before its noun stays a number)
    ("Wir liefern nach 04109 Leipzig und aus 50667 Köln, für 12000 Kunden in 10115 Berlin.",
     "Wir liefern nach null vier eins null neun Leipzig und aus fünf null sechs sechs sieben Köln, für zwölftausend Kunden "
     "in eins null eins eins fünf Berlin."),
    # a number with a period before a noun of a series ('Etappe', 'Runde'; century_words) is its ordinal with no word
    # before it, also opening a line, and so is a Roman one; a ruler's numeral stays his
    ("3. Runde: Anna gewinnt vor Ben, 4. Spieltag am Sonntag.\n2. Halbzeit läuft, die II. Halbzeit folgt.",
     "dritte Runde: Anna gewinnt vor Ben, vierter Spieltag am Sonntag. zweite Halbzeit läuft, die zweite Halbzeit folgt."),
    ("Das Schloss baute Ludwig II. Runde um Runde kommen Gäste.", "Das Schloss baute Ludwig der Zweite. Runde um Runde kommen Gäste."),
    # a year's -er adjective reads the year as a year, in lower case; its noun in the dative plural capitalized
    ("Ein 1985er Bordeaux aus den 1980ern.", "Ein neunzehnhundertfünfundachtziger Bordeaux aus den Neunzehnhundertachtzigern."),
    # a two-digit month and its year are a month date; 'EZ' Erstzulassung, 'VB' Verhandlungsbasis
    ("Opel Astra, EZ 11/2016, HU bis 04/2026, 6.900 € VB.",
     "Opel Astra, Erstzulassung November zweitausendsechzehn, HU bis April zweitausendsechsundzwanzig, "
     "sechstausendneunhundert Euro Verhandlungsbasis."),
    # m:ss before 'Min.' is minutes and seconds, a sign before it a gap
    ("Die Runde dauerte 2:40 Min., der Zweite kam mit -0:12 Min. und der Dritte mit +3:05 Min. ins Ziel.",
     "Die Runde dauerte zwei Minuten und vierzig Sekunden, der Zweite kam mit minus zwölf Sekunden und der Dritte mit "
     "plus drei Minuten und fünf Sekunden ins Ziel."),
    # a year after a word of make or model ('Bj.', 'Jg.', 'Modelljahr', 'EZ') is read as a year
    ("Golf IV, Bj. 1999, Modelljahr 2000; der Jahrgang 1968 traf sich, EZ 1987.",
     "Golf vier, Baujahr neunzehnhundertneunundneunzig, Modelljahr zweitausend; der Jahrgang neunzehnhundertachtundsechzig "
     "traf sich, Erstzulassung neunzehnhundertsiebenundachtzig."),
    # metres with two decimals: the metres, then the centimetres as a number
    ("Der Schrank ist 1,85 m hoch und passt unter eine Decke von 2,40 m.",
     "Der Schrank ist ein Meter fünfundachtzig hoch und passt unter eine Decke von zwei Meter vierzig."),
    # a slash pair after 'Blutdruck' is a pressure, 'zu', never a fraction; after 'am' a date
    ("Der Blutdruck betrug gestern 118/76, am 12/8 war er höher.",
     "Der Blutdruck betrug gestern hundertachtzehn zu sechsundsiebzig, am zwölften August war er höher."),
    # a range of a clock time and a bare hour reads both ends as times, as two clock times are read; no 'von' the
    # text does not write, no 'Uhr' after a full hour the last end says
    ("Die Bringzeit ist 7:30–9 Uhr, die Abholung 15–16:45 Uhr; Sprechstunde 8.30-12 Uhr.",
     "Die Bringzeit ist sieben Uhr dreißig bis neun Uhr, die Abholung fünfzehn bis sechzehn Uhr "
     "fünfundvierzig; Sprechstunde acht Uhr dreißig bis zwölf Uhr."),
    ("Der Kurs läuft freitags 17:00–18:45 Uhr, samstags von 9:00–11:30.",
     "Der Kurs läuft freitags siebzehn bis achtzehn Uhr fünfundvierzig, samstags von neun bis elf Uhr dreißig."),
    # a Roman numeral after 'und' and one read is read as that one is
    ("Lest Kapitel IX und X bis Montag.", "Lest Kapitel neun und zehn bis Montag."),
    # a unit abbreviation's period after a fraction or a range is the unit's, as after a whole number
    ("Planen Sie 2½ Std. Fahrzeit und 10–15 Min. Pause ein, gesamt 1 ½ Std.",
     "Planen Sie zweieinhalb Stunden Fahrzeit und zehn bis fünfzehn Minuten Pause ein, gesamt eineinhalb Stunden."),
]


@pytest.mark.parametrize(("written", "spoken"), READINGS)
def test_reading(written: str, spoken: str) -> None:
    assert normalize(written, "de") == spoken


@pytest.mark.parametrize(("written", "spoken"), READINGS)
def test_stream_equals_one_shot(written: str, spoken: str) -> None:
    assert_stream_equals_one_shot(written, "de")


def test_no_english_words_and_no_digits_left() -> None:
    for written, _ in READINGS:
        spoken = normalize(written, "de")
        assert not re.search(r"\d|\b(one|two|three|point|percent|dollars?)\b", spoken), spoken


def test_barge_in_keeps_raw_text_of_money() -> None:
    """The commit of '25,50 €' carries the raw text it speaks, so heard text is cut in raw form."""
    text = "Das kostet 25,50 € heute."
    commits = streamed(text, "de", [text[:14], text[14:20], text[20:]])
    assert_tiles(commits, text)
    money = next(c for c in commits if "Euro" in c.spoken)
    assert money.raw == "25,50 €" and money.spoken.strip() == "fünfundzwanzig Euro fünfzig"


def test_month_period_is_kept_as_sentence_end() -> None:
    assert normalize("Wir liefern am 3. Mai.", "de").endswith("dritten Mai.")
    assert normalize("Am 2. Mär. 2003", "de") == "Am zweiten März zweitausenddrei"
    assert normalize("Am 2. Mär. Dann am 3. mär. und", "de") == "Am zweiten März. Dann am dritten März und"


def test_list_numbers_at_line_start_stay_list_numbers() -> None:
    assert normalize("1. Milch\n2. Eier", "de").startswith("eins, Milch")
    assert normalize("1. Mai ist frei.", "de") == "erster Mai ist frei."


FRAGMENTS = [
    "1", "3", "25", "2003", "10.000", "25,50", "3.", "02.03.", "14:30", "2.30", "1/2", "-", "+49 ", "(030) ",
    " ", ".", ",", " €", "€", "$", " %", "%", " kg", " km/h", " °C", "°", " Uhr", " Mai", " mär.", " Jahr", "am ",
    "der ", " Platz", " Mio.", " EUR", "z.B.", "Nr.", "info@x.de", "www.", "https://", "\n", "1. ", "Dann ",
    "x", "2D-", "/m²", "1,2,3", " kw", " v", " oz", " NOK", "i.d.R.", "Abs. ", "mind.",
    "mit ", "erhalten Sie ", " Balkon", ", ", " und ", "an ", " Stelle", "sein ", " Jubiläum", "p. a.",
    "mtl. ", " Rate", " Etappe", "im Raum ", "10115", " Berlin", "Az. ", "318/26", "Endung ", "10-kV-", "Netz", "IX. ", "Sinfonie", "Beethovens ", " Tbl.",
]


@pytest.mark.parametrize("seed", range(4))
def test_random_fragments_stream_equals_one_shot(seed: int) -> None:
    for text in fragment_texts(FRAGMENTS, 60, seed):
        assert_stream_equals_one_shot(text, "de", range(4))
