"""Italian normalization (voice_tts.tn.locales.it): readings per class, stream = one-shot, offsets."""

from __future__ import annotations

import re

import pytest
from tn_locale_checks import assert_stream_equals_one_shot, fragment_texts

from voice_tts.tn import normalize

READINGS = [
    # 'incl.' agrees with the noun before it in gender and number
    ("Affitto 700 €, spese incl.; menù a 25 €, bevande incl., coperto incl.",
     "Affitto settecento euro, spese incluse; menù a venticinque euro, bevande incluse, coperto incluso."),
    # a number over a smaller one is a reference, no share
    ("Citi la pratica 734/25 quando chiama.",
     "Citi la pratica settecentotrentaquattro barra venticinque quando chiama."),
    # a running pace after its slash: minutes and seconds al chilometro, never a clock
    ("Ha tenuto i 4:35/km fino al trentesimo.",
     "Ha tenuto i quattro minuti e trentacinque secondi al chilometro fino al trentesimo."),
    # 'S.' before a name in a street's is the saint, in the name's form; elsewhere an initial
    ("Venga in via di S. Lorenzo 15, piazza S. Croce, corso S. Agostino, via S. Stefano 3; il sig. S. Rossi.",
     "Venga in via di San Lorenzo quindici, piazza Santa Croce, corso Sant'Agostino, via Santo Stefano tre; "
     "il signor S. Rossi."),
    # a unit written before a size's numbers is named there ('cm 120 × 60' centimetri); before one number it stays
    ("Il tavolo (cm 120 × 60 × 75), la foto mm 35x45.",
     "Il tavolo (centimetri centoventi per sessanta per settantacinque), "
     "la foto millimetri trentacinque per quarantacinque."),
    # an abbreviated weekday before a day is the weekday ('mar.' martedì, not marzo), the day and month after it a date
    ("Il tecnico passa mar. 9/3 o mer. 10/3, non il 9 mar.",
     "Il tecnico passa martedì nove marzo o mercoledì dieci marzo, non il nove marzo."),
    # a price per litre as per kilo: 'al litro'
    ("Il gasolio costa 1,35 €/l, il vino 8 €/L.",
     "Il gasolio costa un euro e trentacinque al litro, il vino otto euro al litro."),
    # a capital A after a number and a space is amperes; written against the number a letter (a gate's, a row's)
    ("Il caricatore (2 A) e la presa da 16 A; l'uscita 4A, la fila 12A.",
     "Il caricatore (due ampere) e la presa da sedici ampere; l'uscita quattro A, la fila dodici A."),
    # two years in a row joined by a slash or a dash: a season or a school year, both years (no 'barra', no 'da … a'); a
    # number with a slash after 'n.' a file's ('barra'), no fraction
    ("L'anno scolastico 2025-26 e la stagione 2024—2025 sono finiti; il fascicolo n. 2025/318 è chiuso.",
     "L'anno scolastico duemilaventicinque ventisei e la stagione duemilaventiquattro duemilaventicinque sono finiti; "
     "il fascicolo numero duemilaventicinque barra trecentodiciotto è chiuso."),
    # a number with a prime after 'durata' is minutes ("al 90'" stays the match's minute)
    ("Il documentario dura 95', il gol è al 90'.", "Il documentario dura novantacinque minuti, il gol è al novantesimo."),
    # a Roman numeral closing a quoted title is a sequel's number; a ruler's stays an ordinal
    ("Danno «Il Padrino II» e un film su Enrico VIII.", "Danno «Il Padrino due» e un film su Enrico ottavo."),
    # 'a.a.' the academic year, also after an elided article ("l'a.a.", "dell'a.a.")
    ("Le lezioni dell'a.a. 2026/2027 iniziano a ottobre; nell'a.a. 2025 erano 40.",
     "Le lezioni dell'anno accademico duemilaventisei duemilaventisette iniziano a ottobre; nell'anno accademico "
     "duemilaventicinque erano quaranta."),
    # nouns in '-a' that are masculine
    ("Abbiamo 1 pigiama e 1 tosaerba.", "Abbiamo un pigiama e un tosaerba."),
    # a time followed by its hour unit is a duration, the unit read once; after a clock cue a clock
    ("Il tragitto richiede 1:45 h, la gara si è chiusa in 2:10:05 ore; arrivo alle 14:30 h.",
     "Il tragitto richiede un'ora e quarantacinque minuti, la gara si è chiusa in due ore, dieci minuti e cinque secondi; "
     "arrivo alle quattordici e trenta."),
    # a plus sign before a number is read, as a minus is
    ("Vendite in crescita (+4,2 %), costi in calo (-1,5 %).",
     "Vendite in crescita (più quattro virgola due per cento), costi in calo (meno uno virgola cinque per cento)."),
    # a race's time in primes (hours 'h', minutes ', seconds "): its parts named, no inches
    ("Ha vinto in 1h58'07\", davanti a chi ha chiuso in 59'40\".",
     "Ha vinto in un'ora, cinquantotto minuti e sette secondi, davanti a chi ha chiuso in cinquantanove minuti e quaranta "
     "secondi."),
    # 'Ø' before a size is its diameter; 'gg' giorni
    ("Padella Ø 28 cm, consegna in 3 gg.", "Padella diametro ventotto centimetri, consegna in tre giorni."),
    # a time with seconds after no clock cue is a race's, a duration ('alle 12:00:30' stays a clock)
    ("Ha chiuso in 1:12:05 la mezza.", "Ha chiuso in un'ora, dodici minuti e cinque secondi la mezza."),
    ("La targa 8ABC123 è annotata.", "La targa otto A B C uno due tre è annotata."),  # digits, capitals, digits: sign by sign
    # a range without 'da' reads 'o' ('entro 3–4 giorni'); capitals with no vowel before a code spelled; 'n°' numero and
    # a code after it sign by sign; 'rif.', 'pers.' in full; a day and month after an abbreviated weekday and its comma
    ("Il corriere GLS consegna il pacco n° 5D 2210 7781 entro 3–4 giorni, rif. 221, per 2 pers., gio., 9/10; codice TNT 0471 5520.",
     "Il corriere GLS consegna il pacco numero cinque D due due uno zero sette sette otto uno entro tre o quattro giorni, "
     "riferimento duecentoventuno, per due persone, giovedì, nove ottobre; codice T N T zero quattro sette uno cinque cinque due zero."),
    # capitals before digits, or groups of capitals and digits: a code sign by sign, a year inside it too, its slash 'barra'
    ("Il sinistro n. RC-2026/0457, codice PK4471.",
     "Il sinistro numero R C due zero due sei barra zero quattro cinque sette, codice P K quattro quattro sette uno."),
    # a chapter's or a room's dotted number part by part
    ("Vedi il capitolo 3.2, aula 2.14.", "Vedi il capitolo tre punto due, aula due punto quattordici."),
    # a Roman numeral after a point of a text, or an elided article's article, is its number
    ("Rileggi il punto IV e il comma 2 dell'articolo XII.",
     "Rileggi il punto quattro e il comma due dell'articolo dodici."),
    # after a chapter word in the plural a Roman numeral is a number too
    ("Per domani studiate i capitoli IX, poi il resto.", "Per domani studiate i capitoli nove, poi il resto."),
    # a gas bill's standard cubic metre by its name
    ("Quest'anno ha consumato 1 Smc al giorno, 365 Smc in tutto.",
     "Quest'anno ha consumato uno standard metro cubo al giorno, trecentosessantacinque standard metri cubi in tutto."),
    # cardinals: dotted thousands, elision and accent
    ("Abbiamo 10.000 clienti e 88 tavoli.", "Abbiamo diecimila clienti e ottantotto tavoli."),
    ("Sono 23 persone e 101 sedie.", "Sono ventitré persone e centouno sedie."),
    ("Un premio di 2.000.000", "Un premio di due milioni"),
    ("Fa -5 fuori.", "Fa meno cinque fuori."),
    # ordinals
    ("Il 21° secolo e la 2ª volta", "Il ventunesimo secolo e la seconda volta"),
    # decimals and percent
    ("Una crescita del 3,5 %", "Una crescita del tre virgola cinque per cento"),
    # a percent sign written against the number reads as one after a space does
    ("Sale del 12,5% e del 7%.", "Sale del dodici virgola cinque per cento e del sette per cento."),
    ("Un valore di 0,05", "Un valore di zero virgola zero cinque"),
    # money
    # the cents joined by "e", in every currency, tens of them without their unit as Italians say them (a few cents
    # keep it); cents alone without "e"
    ("Costa 25,50 € in tutto.", "Costa venticinque euro e cinquanta in tutto."),
    # a scale's letters against a currency ('45 M€' milioni, '2 Mld€' miliardi)
    ("La società ha speso 45 M€ per il portiere e 2 Mld€ per lo stadio.",
     "La società ha speso quarantacinque milioni di euro per il portiere e due miliardi di euro per lo stadio."),
    ("L'importo è di 19,90 €.", "L'importo è di diciannove euro e novanta."),
    ("Costa $12,05 o 4,20 £.", "Costa dodici dollari e cinque centesimi o quattro sterline e venti."),
    ("Le restituiamo 0,99 €.", "Le restituiamo novantanove centesimi."),
    ("Solo 1 € o $15", "Solo un euro o quindici dollari"),
    # dates
    ("Arriva il 3 maggio 2025.", "Arriva il tre maggio duemilaventicinque."),
    # the period of an abbreviated month that ends the sentence stays punctuation
    ("Arriva il 3 mag. Poi il 4 mag., il 5 mag. 2025.",
     "Arriva il tre maggio. Poi il quattro maggio, il cinque maggio duemilaventicinque."),
    ("Il 1° gennaio e il 14/07/2024", "Il primo gennaio e il quattordici luglio duemilaventiquattro"),
    # a compound ending in 'tre' is stressed on it, after mille and mila too ('ventitré', 'duemilatré')
    ("Oltre la soglia si naviga a 128 kbps.", "Oltre la soglia si naviga a centoventotto kilobit al secondo."),
    ("Fondata nel 2003, conta 1003 soci e 3003 iscritti.", "Fondata nel duemilatré, conta milletré soci e tremilatré iscritti."),
    # times
    ("Alle 16:00 e alle 9:30", "Alle sedici e alle nove e trenta"),
    # measures and fractions
    ("Fa -3 °C e andiamo a 120 km/h.", "Fa meno tre gradi e andiamo a centoventi chilometri orari."),
    # ranges: "da … a", none after a preposition or article; a range of the day ending its phrase: hours
    ("Richiede 2–4 giorni, entro 3-5 giorni.", "Richiede da due a quattro giorni, entro tre o cinque giorni."),
    ("Aperti dal lunedì al sabato, 9–13 e 15–19.", "Aperti dal lunedì al sabato, dalle nove alle tredici e dalle quindici alle diciannove."),
    ("Con 1/2 litro e 2/3 della torta", "Con mezzo litro e due terzi della torta"),
    ("Pesa 1 kg, anzi 2,5 kg.", "Pesa un chilo, anzi due chili e mezzo."),
    # telephone numbers and addresses
    ("Chiami il +39 06 1234 5678.", "Chiami il più trentanove zero sei uno due tre quattro cinque sei sette otto."),
    ("Scriva a info@esempio.it.", "Scriva a info chiocciola esempio punto i t."),
    # abbreviations
    ("Il sig. Rossi e la dott.ssa Bianchi, ecc.", "Il signor Rossi e la dottoressa Bianchi, eccetera."),
    ("Ne parlano l'On. Verdi e dell'Arch. Neri in v.le Europa.",
     "Ne parlano l'onorevole Verdi e dell'architetto Neri in viale Europa."),
    # units and currencies of the Italian NeMo data, in both cases
    ("Un motore da 5 kw a 220 v con 10 mA e 40 dB.",
     "Un motore da cinque kilowatt a duecentoventi volt con dieci milliampere e quaranta decibel."),
    ("Corre 5 mi, pesa 3 lb e brucia 200 kcal.", "Corre cinque miglia, pesa tre libbre e brucia duecento chilocalorie."),
    ("Ha pagato 20 USD, 15 CAD e 3 ₽.", "Ha pagato venti dollari, quindici dollari canadesi e tre rubli."),
    # times with seconds say every part
    ("Partenza alle 12:00:30.", "Partenza alle dodici e zero minuti e trenta secondi."),
    # file extensions read as words
    ("Vedi https://www.esempio.it/main.py", "Vedi h t t p s due punti slash slash w w w punto esempio punto i t slash "
     "main punto python"),
    # a card's last digits, a reference, a class's Roman numeral, a time in a sentence, a range's unit
    ("Carta che termina con 4821, pratica PZ-6190, classe III B, alle 18:40 o alle 8:01.", "Carta che termina con "
     "quattro otto due uno, pratica P Z sei uno nove zero, classe terza B, alle diciotto e quaranta o alle otto e "
     "un minuto."),
    ("Temperatura: 2–8 °C.", "Temperatura: da due a otto gradi."),
    # a code a code word names a few words before it, by its digits; a year after 'del' stays one
    ("Inserisca il codice 730 592; il PIN della carta: 0852, le ultime cifre sono 2046, codice civile del 1942.",
     "Inserisca il codice sette tre zero cinque nove due; il PIN della carta: zero otto cinque due, le ultime cifre sono "
     "due zero quattro sei, codice civile del millenovecentoquarantadue."),
    # units CLDR lacks (a small table), CLDR's concentrations, a dose per an amount, dimensions, inches, a mark out of its top
    ("La batteria ha 4500 mAh, sciroppo da 250 mg/5 ml, ferritina a 320 pg/ml, glicemia a 5,4 mmol/L.", "La batteria ha "
     "quattromilacinquecento milliampereora, sciroppo da duecentocinquanta milligrammi per cinque millilitri, ferritina a "
     "trecentoventi picogrammi per millilitro, glicemia a cinque virgola quattro millimoli per litro."),
    ("Le piastrelle sono 30×60cm, il tavolo 80 x 120 cm e lo schermo 27\".", "Le piastrelle sono trenta per sessanta "
     "centimetri, il tavolo ottanta per centoventi centimetri e lo schermo ventisette pollici."),
    ("La valigia misura 55 x 40 x 20 cm, la scatola 30×20×10cm.", "La valigia misura cinquantacinque per quaranta per venti "
     "centimetri, la scatola trenta per venti per dieci centimetri."),
    ("Il castello del XII sec. ospita opere del sec. XV.", "Il castello del dodicesimo secolo ospita opere del secolo quindicesimo."),
    ("Il codice di tracciamento è 9043 2271.", "Il codice di tracciamento è nove zero quattro tre due due sette uno."),
    ("Chiami lo 02 / 8765 4321.", "Chiami lo zero due otto sette sei cinque quattro tre due uno."),
    ("Aggiungere ½ bicchiere di acqua e 1 bicchiere e ½ di vino.", "Aggiungere mezzo bicchiere di acqua e un bicchiere e mezzo di vino."),
    ("Il mobile misura 81 x 41 cm e pesa 21 kg; restano 31 giorni.", "Il mobile misura ottantuno per quarantuno centimetri e pesa "
     "ventuno chili; restano trentuno giorni."),
    ("Consegna martedì, 7/4, o giovedì, 9/4.", "Consegna martedì, sette aprile, o giovedì, nove aprile."),
    ("Il corso si tiene dal 3-7 luglio.", "Il corso si tiene dal tre al sette luglio."),
    ("Aperto mar.–sab., chiuso dal lun. al mer.", "Aperto dal martedì al sabato, chiuso dal lunedì al mercoledì."),
    ("Ha preso 8/10 e 95/100.", "Ha preso otto su dieci e novantacinque su cento."),
    # a product before '=' reads its 'x' as '×' does; sides before a unit stay a size
    ("Se 2 x 3 = 6, allora 2,5 x 4 = 10; il box misura 2 x 3 m.", "Se due per tre uguale sei, allora due virgola cinque per quattro "
     "uguale dieci; il box misura due per tre metri."),
    ("Attendiamo tra 1.000-2.000 persone.", "Attendiamo tra mille e duemila persone."),
    ("Il noleggio costa 1.500-2.000 € al mese.", "Il noleggio costa da millecinquecento a duemila euro al mese."),
    # two abbreviated weekdays joined by a dash: the article before the last one agrees with it
    ("Il museo è aperto mar.–dom., il negozio lun.–sab.", "Il museo è aperto dal martedì alla domenica, il negozio dal lunedì al sabato."),
    ("Aggiungi 2 ½ tazze di farina.", "Aggiungi due tazze e mezza di farina."),
    ("All'esame ha preso 28/30.", "All'esame ha preso ventotto su trenta."),
    ("Il tubo misura 3/4\", prenda 1000 UI di vitamina D e 150 mcg di iodio; polso a 72 bpm.", "Il tubo misura tre quarti "
     "di pollice, prenda mille unità internazionali di vitamina D e centocinquanta microgrammi di iodio; polso a "
     "settantadue battiti al minuto."),
    # a number over a year is a reference (barra); the codes by their names; a unit's period before a semicolon
    ("Ai sensi dell'art. 2043 c.c. e dell'art. 640 c.p., il d.lgs. 81/2008 si applica; la pratica è la 317/2025.", "Ai sensi "
     "dell'articolo duemilaquarantatré codice civile e dell'articolo seicentoquaranta codice penale, il decreto legislativo "
     "ottantuno barra duemilaotto si applica; la pratica è la trecentodiciassette barra duemilaventicinque."),
    ("La batteria da 45 Wh si ricarica in 40 min.; il motore fa 1.200 giri/min.", "La batteria da quarantacinque wattora si "
     "ricarica in quaranta minuti; il motore fa milleduecento giri al minuto."),
    # a Roman numeral after a room's noun is its number; after a ruler's name, his ordinal
    ("La riunione è in aula III, poi nella stanza II; Carlo V regnò.", "La riunione è in aula tre, poi nella stanza due; Carlo quinto regnò."),
    # an abbreviated weekday after 'ogni'
    ("La palestra apre ogni gio. alle 7.", "La palestra apre ogni giovedì alle sette."),
    # a range after 'a' joins its ends with no second 'a'
    ("Raffiche a 40-50 km/h.", "Raffiche a quaranta cinquanta chilometri orari."),
    # a Roman numeral after a chapter's word, written in full or abbreviated, is its number; eras in full
    ("Come indicato al cap. IV e nella sez. II del libro III, Pompei fu sepolta nel 79 d.C., Cesare morì nel 44 a.C.",
     "Come indicato al capitolo quattro e nella sezione due del libro tre, Pompei fu sepolta nel settantanove dopo "
     "Cristo, Cesare morì nel quarantaquattro avanti Cristo."),
    ("Fondata nel 753 a. C., durò 3 d. Poi basta.",
     "Fondata nel settecentocinquantatré avanti Cristo, durò tre giorni. Poi basta."),
    # a fitness abbreviation in full, but not in a club's name
    # a mobile or toll-free number written in groups that Italy's numbering plan knows is read digit by digit
    ("Chiami il numero verde 800 123 456 oppure il 333 1234567 o lo 06 1234 5678.", "Chiami il numero verde otto zero "
     "zero uno due tre quattro cinque sei oppure il tre tre tre uno due tre quattro cinque sei sette o lo zero sei uno "
     "due tre quattro cinque sei sette otto."),
    # a limit's abbreviation in full ('al max.' al massimo); after a number 'min.' stays the minutes
    ("Ogni classe avrà al max. 25 alunni e min. 12, con 5 min. di pausa.", "Ogni classe avrà al massimo venticinque "
     "alunni e minimo dodici, con cinque minuti di pausa."),
    # a currency's sign after a scale word and "di" is named
    ("Un fondo di 3 miliardi di € e 2 milioni di $.", "Un fondo di tre miliardi di euro e due milioni di dollari."),
    # half an hour written as a decimal is said as a half
    ("La seduta dura 1,5 ore e il viaggio 2,5 h.", "La seduta dura un'ora e mezza e il viaggio due ore e mezza."),
    # a feminine acronym or loanword counted as a feminine noun ('la SIM', "l'app", 'la password'); 'lo SPID' stays
    ("Serve 1 SIM, 1 app e 1 password; con 1 PEC e 1 SPID.", "Serve una SIM, un'app e una password; con una PEC e uno SPID."),
    ("Riceverà 1 mail e 1 newsletter.", "Riceverà una mail e una newsletter."),
    # a number that names the noun before it counts none ('la linea 1' uno)
    ("La linea 1 chiude alle 21 e il binario 1 è chiuso.", "La linea uno chiude alle ventuno e il binario uno è chiuso."),
    ("Una FC media di 150 bpm; la Juventus FC e il FC Bari.", "Una frequenza cardiaca media di centocinquanta "
     "battiti al minuto; la Juventus FC e il FC Bari."),
    # data rates in full; degrees without Celsius, as said; a number with a leading zero after 'n.' digit by digit
    ("Fibra fino a 1 Gbps e 300 Mbps; minime di -4 °C e massime di 21 °C, 1 °C a Milano.", "Fibra fino a un gigabit "
     "al secondo e trecento megabit al secondo; minime di meno quattro gradi e massime di ventuno gradi, un grado a Milano."),
    ("Pratica n. 0457 e posizione numero 00891.",
     "Pratica numero zero quattro cinque sette e posizione numero zero zero otto nove uno."),
    # a match minute in added time
    ("Gol al 45'+2 e al 90’+4: vince 2-1.", "Gol al quarantacinquesimo più due e al novantesimo più quattro: vince due a uno."),
    # a day and month without zeros: a date after a date word or where the day is past 12, else a fraction
    ("Consegna entro il 28/2; chiuso dal 5/10 al 9/10.",
     "Consegna entro il ventotto febbraio; chiuso dal cinque ottobre al nove ottobre."),
    ("Il giorno 21/3 si parte; serve 1/2 litro, voto 8/10.",
     "Il giorno ventuno marzo si parte; serve mezzo litro, voto otto su dieci."),
    ('Compri 2,5 kg di patate e 1,5 l di latte; il sentiero è di 3,5 km.',
     'Compri due chili e mezzo di patate e un litro e mezzo di latte; il sentiero è di tre chilometri e mezzo.'),
    ("Il treno 108 parte al 45' del primo tempo, nel XV sec.; i km e i mq sono inclusi.",
     'Il treno centotto parte al quarantacinquesimo del primo tempo, nel quindicesimo secolo; i chilometri e i metri quadri sono inclusi.'),
    # a ruler's numeral in a quoted title stays his; 'ha' before a participle is the verb, no hectares
    ("Stasera l'«Enrico IV» di Pirandello; la n. 4 ha vinto, su 10 ha coltivati.",
     "Stasera l'«Enrico quarto» di Pirandello; la numero quattro ha vinto, su dieci ettari coltivati."),
    # a Roman numeral after a course's name is its number, after a ruler's or a pope's his ordinal
    ("Il corso di Fisica Generale II inizia lunedì; Papa Pio IX e Vittorio Emanuele III.",
     "Il corso di Fisica Generale due inizia lunedì; Papa Pio nono e Vittorio Emanuele terzo."),
    # capitals are an acronym ('il PC' a computer, 'il CV' a résumé); 'CV' after a number is horsepower
    ("Spegni il PC e allega il CV; la barca ha un motore da 25 CV.",
     "Spegni il PC e allega il CV; la barca ha un motore da venticinque cavalli."),
    # a price per kilo as said ('al chilo'); a half of a kilo 'mezzo chilo'
    ("Le ciliegie costano 6,50 €/kg, ne prendo ½ kg.",
     "Le ciliegie costano sei euro e cinquanta al chilo, ne prendo mezzo chilo."),
    # an abbreviation written without its period before a number ('max 4 ospiti', 'pag 12')
    ("Camera per max 4 ospiti, vedi pag 12.", "Camera per massimo quattro ospiti, vedi pagina dodici."),
    # a Roman numeral between an article joined to a preposition and a noun is an ordinal
    ("Se ne parlò nella XVIII legislatura e dopo la II guerra mondiale.",
     "Se ne parlò nella diciottesima legislatura e dopo la seconda guerra mondiale."),
    # a match's sets in a list, one not rising or after a word of a match: its score, never ranges
    ("Ha perso 3-6, 6-4, 5-7 contro la numero uno.",
     "Ha perso tre a sei, sei a quattro, cinque a sette contro la numero uno."),
    ("Il doppio ha perso 4-6, 3-6 in semifinale.", "Il doppio ha perso quattro a sei, tre a sei in semifinale."),
    # a two-digit month and its year are a month date; 'Pad.' Padiglione
    ("Revisione valida fino a 09/2024, ritiro al Pad. 3 entro 01/2025.",
     "Revisione valida fino a settembre duemilaventiquattro, ritiro al Padiglione tre entro gennaio duemilaventicinque."),
    # an apostrophe for a year's century is not read; one eliding an article stays
    ("Lo scudetto del '91 e la crisi dell'89 ('92 compreso).",
     "Lo scudetto del novantuno e la crisi dell'ottantanove (novantadue compreso)."),
    # an engine written with a point is read as written ('1.4' uno punto quattro)
    ("Punto 1.4 GPL da 77 CV, la 500 1.0 ibrida costa meno.",
     "Punto uno punto quattro GPL da settantasette cavalli, la cinquecento uno punto zero ibrida costa meno."),
    # a price per kilometre or kilowatt-hour is 'al' (a unit per another stays 'per')
    ("Taxi: 2,10 €/km di giorno e 0,25 €/kWh alla colonnina; 1,5 l/km è troppo.",
     "Taxi: due euro e dieci al chilometro di giorno e venticinque centesimi al chilowattora alla colonnina; uno virgola cinque "
     "litri per chilometro è troppo."),
    # times with a point listed after a clock cue are all times, each read as after it
    ("Le navette partono alle 8.20, 9.50 e 11.35.", "Le navette partono alle otto e venti, nove e cinquanta e undici e trentacinque."),
    # a slash pair after 'pressione' is a pressure, 'su', never a fraction
    ("Ha la pressione a 125/80 ogni mattina.", "Ha la pressione a centoventicinque su ottanta ogni mattina."),
    # a Roman numeral after 'e' and one read is read as that one is ('capitoli VII e VIII', 'Pio XI e XII')
    ("Studiate i capitoli VII e VIII per lunedì, su Pio XI e XII.",
     "Studiate i capitoli sette e otto per lunedì, su Pio undicesimo e dodicesimo."),
    # a range of a clock time and a bare hour reads both ends as times, as two clock times are read
    ("Ricevimento dalle 7:30-9 e dalle 15-17.30; sabato 8.30-13.",
     "Ricevimento dalle sette e trenta alle nove e dalle quindici alle diciassette e trenta; sabato dalle otto e trenta "
     "alle tredici."),
    # 'kg' chili; a numbered lesson in Roman numerals a cardinal; 'kVA'
    ("Portate 4 kg di farina alla lezione III; il contatore è da 6 kVA.",
     "Portate quattro chili di farina alla lezione tre; il contatore è da sei chilovoltampere."),
]


@pytest.mark.parametrize(("written", "spoken"), READINGS)
def test_reading(written: str, spoken: str) -> None:
    assert normalize(written, "it") == spoken


@pytest.mark.parametrize(("written", "spoken"), READINGS)
def test_stream_equals_one_shot(written: str, spoken: str) -> None:
    assert_stream_equals_one_shot(written, "it")


def test_no_digits_left() -> None:
    for written, _ in READINGS:
        assert not re.search(r"\d", normalize(written, "it"))


FRAGMENTS = [
    "1", "3", "23", "10.000", "25,50", "1°", "2ª", "16:00", "9:30", "1/2", "-", "+39 ", "06 1234", " ", ".", ",",
    " €", "€", "$", " %", "%", " kg", " km/h", " °C", "2–4", "9-13", " e ", " giorni", " maggio", " mag.", "il ", "sig.", "dott.ssa", "ecc.", "a@b.it", "www.",
    "\n", "1. ", "x", " milioni", " kw", " mA", "12:00:30", "l'On.", " v.le", " USD", "a.py",
    " d.C.", " a. C.", " d. ", "cap. ", "IV", "FC ", " Bari",
]


@pytest.mark.parametrize("seed", range(3))
def test_random_fragments_stream_equals_one_shot(seed: int) -> None:
    for text in fragment_texts(FRAGMENTS, 60, seed):
        assert_stream_equals_one_shot(text, "it", range(4))
