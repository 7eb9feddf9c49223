"""Spanish, Portuguese and Russian normalization: readings per class, stream output equal to
one-shot output on random splits, and raw↔spoken offsets that tile the raw text exactly."""

from __future__ import annotations

import random

import pytest

from tests.text_pieces import random_pieces
from tests.tn_locale_checks import assert_stream_equals_one_shot, fragment_texts
from voice_tts.tn import StallPolicy, StreamingNormalizer, normalize

READINGS = {
    "es": [
        ("La farmacia atiende de 9h-14h.", "La farmacia atiende de nueve a catorce."),  # 'de' said once
        # a 24-hour time plain from ten past ('veintitrés quince', no 'y cuarto'); under ten and a morning's with 'y'
        ("El último tren sale a las 23:15 y el primero a las 6:15; la consulta abre a las 15:05 y cierra a las 19:20.",
         "El último tren sale a las veintitrés quince y el primero a las seis y cuarto; la consulta abre a las "
         "quince y cinco y cierra a las diecinueve veinte."),
        # a telephone number's groups as written, each a number, where one has two digits, and a freephone's
        ("Pida cita llamando al 955 41 62 07 o al 900 321 654.",
         "Pida cita llamando al novecientos cincuenta y cinco cuarenta y uno sesenta y dos cero siete o al novecientos "
         "trescientos veintiuno seiscientos cincuenta y cuatro."),
        # a number over a smaller one is a reference, no share
        ("Consulte la resolución 417/25 del juzgado.",
         "Consulte la resolución cuatrocientos diecisiete barra veinticinco del juzgado."),
        # a blood pressure after 'tensión', 'presión': in centimetres of mercury its two numbers, else 'sobre'; no date
        ("Tenía la tensión en 12/7 y la presión arterial en 150/95 el 3/5.",
         "Tenía la tensión en doce siete y la presión arterial en ciento cincuenta sobre noventa y cinco el tres de "
         "mayo."),
        # a running pace after its slash: minutes and seconds per kilometer, never a clock
        ("Rodó a 4:50/km y después a 4'05\"/km.",
         "Rodó a cuatro minutos y cincuenta segundos por kilómetro y después a cuatro minutos y cinco segundos por "
         "kilómetro."),
        # a month's first day is 'uno', as Spain says it; written as an ordinal ('1.º') it stays 'primero'
        ("Cierra del 1 de agosto al 1/9; reabre el 1.º de septiembre.",
         "Cierra del uno de agosto al uno de septiembre; reabre el primero de septiembre."),
        # a unit's symbol after an article or 'por' with no number is the unit's name
        ("El kg de cerezas sale a 6 € y el envío, 0,40 € por km.",
         "El kilogramo de cerezas sale a seis euros y el envío, cuarenta céntimos por kilómetro."),
        # a price per litre as per kilo: 'el litro'
        ("El gasóleo sale a 1,05 €/l y el aceite a 9 €/L.",
         "El gasóleo sale a un euro con cinco céntimos el litro y el aceite a nueve euros el litro."),
        # a scale's letter against a currency is the scale ('75 M€' millones), never a unit ('M' millas náuticas)
        ("El club pagó 75 M€ por el portero y la grada costó 300 k€.",
         "El club pagó setenta y cinco millones de euros por el portero y la grada costó trescientos mil euros."),
        # a capital A after a number and a space is amperes; written against the number, or after a door's or a
        # floor's word, a letter
        ("El cargador (2 A) y el enchufe de 16 A; la puerta 4A y la fila 12A.",
         "El cargador (dos amperios) y el enchufe de dieciséis amperios; la puerta cuatro A y la fila doce A."),
        ("Vivo en el piso 3 A, escalera 2 A; la toma es de 16 A.",
         "Vivo en el piso tres A, escalera dos A; la toma es de dieciséis amperios."),
        # two years in a row joined by a slash or a dash are a season or a school year: both years, no 'de … a'; after a
        # preposition a range; a number with a slash after 'n.º' a file's, 'barra', a part led by a zero digit by digit
        ("El curso 2026/27 y la temporada 2025—2026 acaban; entre 2019-2020 cerró; el expediente n.º 2025/00917 sigue.",
         "El curso dos mil veintiséis veintisiete y la temporada dos mil veinticinco dos mil veintiséis acaban; "
         "entre dos mil diecinueve y dos mil veinte cerró; "
         "el expediente número dos mil veinticinco barra cero cero nueve uno siete sigue."),
        # a chapter's or a room's dotted number part by part
        ("Vea el capítulo 3.2, aula 2.14.", "Vea el capítulo tres punto dos, aula dos catorce."),
        # capitals before digits, or groups of capitals and digits: a code sign by sign, its slash 'barra'
        ("Expediente RC-2026/0457, código PK4471.",
         "Expediente R C dos cero dos seis barra cero cuatro cinco siete, código P K cuatro cuatro siete uno."),
        # a range of amounts, its currency said once after it
        ("El alquiler cuesta 1.500–2.000 € al mes, o USD 1.500-2.000.",
         "El alquiler cuesta de mil quinientos a dos mil euros al mes, o de mil quinientos a dos mil dólares estadounidenses."),
        ("Mezcle cemento y arena 1:4 a las 9:30.", "Mezcle cemento y arena uno a cuatro a las nueve y media."),
        # a whole number and a fraction's glyph after a space are one quantity, as '2½' is
        ("Añada 2 ½ cucharadas de azúcar.", "Añada dos cucharadas y media de azúcar."),
        # a counted 'noches' is no hour; ':00 h' horas; a day and month after an abbreviated weekday and its comma; a reference after
        # 'n.º' or 'nº' digit by digit, letters too; 'ref.', 'pers.' in full; a verb's digit cue only with its subject (a year here)
        ("Reserva para 2 pers., ref. 12, vie., 14/3, de 10:00 a 13:00 h; incluye 1 noche; pedido nº 7C 2231 9900 o n.º 51-2207.",
         "Reserva para dos personas, referencia doce, viernes, catorce de marzo, de diez a trece horas; incluye una noche; pedido "
         "número siete C dos dos tres uno nueve nueve cero cero o número cinco uno dos dos cero siete."),
        ("La catedral, acabada en 1572, es gótica.", "La catedral, acabada en mil quinientos setenta y dos, es gótica."),
        ("Sacó 2/100 del total y un 95/100 en el examen.",
         "Sacó dos centésimos del total y un noventa y cinco sobre cien en el examen."),
        # cardinals, with dots or spaces between groups
        ("Somos 1.250 socios", "Somos mil doscientos cincuenta socios"),
        ("Hay 3 000 000 de casos", "Hay tres millones de casos"),
        ("Llegaron 21", "Llegaron veintiuno"),
        ("Son 2.000.000.000", "Son dos mil millones"),
        # ordinals
        ("Es la 3.ª vez", "Es la tercera vez"),
        ("Quedó 12.º", "Quedó duodécimo"),
        ("el 1.er día", "el primer día"),
        ("el 45.º aniversario", "el cuadragésimo quinto aniversario"),
        # decimals, fractions, percent
        ("Mide 2,5 metros", "Mide dos coma cinco metros"),
        ("Sube un 7,25 %", "Sube un siete coma veinticinco por ciento"),
        ("Sube un 12,5%", "Sube un doce coma cinco por ciento"),
        ("Sube un 1/2 %", "Sube un medio por ciento"),
        # a period after a date that ends the sentence stays punctuation; inside it, it is the month's
        ("El paquete llega el 3 de mayo.", "El paquete llega el tres de mayo."),
        ("Llega el 4 de abr. Luego el 5 de abr. de 2020.",
         "Llega el cuatro de abril. Luego el cinco de abril de dos mil veinte."),
        ("Añade 3/4 de taza", "Añade tres cuartos de taza"),
        ("Toma 1/2", "Toma medio"),
        # money
        # the cents joined by "con", in every currency; cents alone without it
        ("Cuesta 12,99 €", "Cuesta doce euros con noventa y nueve céntimos"),
        ("Son 35,50 €.", "Son treinta y cinco euros con cincuenta céntimos."),
        ("Cuesta $1,01 y 5,02 £", "Cuesta un dólar con un centavo y cinco libras con dos peniques"),
        ("Cobramos 1.250,75 USD", "Cobramos mil doscientos cincuenta dólares estadounidenses con setenta y cinco centavos"),
        ("Le devolvemos 0,99 €", "Le devolvemos noventa y nueve céntimos"),
        ("Pagó $3", "Pagó tres dólares"),
        ("Son 2 £", "Son dos libras"),
        ("Vale 1,5 millones de euros", "Vale uno coma cinco millones de euros"),
        # dates and times
        ("Nació el 14/07/1995", "Nació el catorce de julio de mil novecientos noventa y cinco"),
        ("El 5 de enero de 2024", "El cinco de enero de dos mil veinticuatro"),
        # a 'de' after the month with no year after it stays a word of its own
        ("Firmado el 9 de junio de.", "Firmado el nueve de junio de."),
        ("A las 18:45", "A las dieciocho cuarenta y cinco"),
        ("A las 7.15 p.m. en punto", "A las siete y cuarto de la tarde en punto"),
        # measures
        ("Corre 10 km", "Corre diez kilómetros"),
        ("El curso va del 3-7 de julio.", "El curso va del tres al siete de julio."),
        ("Le visitamos el martes, 7/4, o el jueves, 9/4; el lunes, 3 personas.", "Le visitamos el martes, siete de abril, o el jueves, nueve de "
         "abril; el lunes, tres personas."),
        ("Su localizador es 7719 2046 y llega en 3 días.", "Su localizador es siete siete uno nueve dos cero cuatro seis y llega en tres días."),
        ("Atendemos lun–vie y de sáb. a dom. Gracias.", "Atendemos de lunes a viernes y de sábado a domingo. Gracias."),
        ("La caja mide 60 x 40 x 35 cm y la maleta 55×40×20 cm.", "La caja mide sesenta por cuarenta por treinta y cinco "
         "centímetros y la maleta cincuenta y cinco por cuarenta por veinte centímetros."),
        ("Hace -3 °C", "Hace menos tres grados centígrados"),
        ("A 120 km/h", "A ciento veinte kilómetros por hora"),
        # ranges: "de … a", none after a preposition or article; hours ending a phrase
        ("Tarda 2–4 días, en un plazo de 3-5 días; sube un 2-3 %.", "Tarda de dos a cuatro días, en un plazo de tres a cinco días; sube un dos a tres por ciento."),
        ("Abrimos de lunes a sábado, 9–13 y 16–20.", "Abrimos de lunes a sábado, de nueve a trece y de dieciséis a veinte."),
        # telephone, addresses
        ("Llame al 600-123-456", "Llame al seis cero cero uno dos tres cuatro cinco seis"),
        ("Escriba a ana.ruiz@correo.es", "Escriba a ana punto ruiz arroba correo punto es"),
        # Roman numerals and abbreviations
        ("el siglo XXI", "el siglo veintiuno"),
        ("Felipe II", "Felipe segundo"),
        ("La matrícula 8ABC123 y la 2XL.", "La matrícula ocho A B C uno dos tres y la dos XL."),  # a plate sign by sign
        # a ruler above ten by the number, up to ten by the ordinal
        ("Bajo Fernando VII y luego Pío XII.", "Bajo Fernando séptimo y luego Pío doce."),
        ("El papa Sixto IV encargó la capilla; Alejandro VII la amplió.",
         "El papa Sixto cuarto encargó la capilla; Alejandro séptimo la amplió."),
        # a unit whose symbol is a word takes the word's plural ('bares')
        ("Infle la rueda a 3,5 bar; la botella aguanta 1 bar más.",
         "Infle la rueda a tres coma cinco bares; la botella aguanta un bar más."),
        # 'ppm' after a pulse's word counts beats, elsewhere parts per million
        ("Con el pulso en reposo a 58 ppm, el agua lleva 2 ppm de cloro.",
         "Con el pulso en reposo a cincuenta y ocho pulsaciones por minuto, "
         "el agua lleva dos partes por millón de cloro."),
        ("La reina Isabel III y León XXI", "La reina Isabel tercera y León veintiuno"),
        ("La Dra. Pérez", "La Doctora Pérez"),
        ("en EE. UU.", "en Estados Unidos."),
        # a card's last digits, a reference, a Roman numeral before its noun, a range's unit
        ("Tarjeta terminada en 4821, expediente MT-7264, la III Feria; temperatura: 2–8 °C.", "Tarjeta terminada en "
         "cuatro ocho dos uno, expediente M T siete dos seis cuatro, la tercera Feria; temperatura: de dos a ocho grados "
         "centígrados."),
        ("Quedan 21 plazas de 240.", "Quedan veintiuna plazas de doscientas cuarenta."),
        # a code a code word names a few words before it, by its digits; a year after 'de' stays one
        ("Introduzca el código 730 592; el PIN de su tarjeta es 0852, según el Código Penal de 1995.", "Introduzca el "
         "código siete tres cero cinco nueve dos; el PIN de su tarjeta es cero ocho cinco dos, según el Código Penal de mil "
         "novecientos noventa y cinco."),
        # a code written in pairs is read pair by pair, as a telephone number's
        ("El código de acceso es 64 09 31 y el PIN, 27 58.", "El código de acceso es sesenta y cuatro cero nueve treinta y "
         "uno y el PIN, veintisiete cincuenta y ocho."),
        ("El código vale hasta el 2025; código: 2024.", "El código vale hasta el dos mil veinticinco; código: dos cero dos cuatro."),
        ("Consume 3 kWh/día y riega 5 l/m².", "Consume tres kilovatios hora al día y riega cinco litros por metro cuadrado."),
        # units CLDR lacks (a small table), CLDR's concentrations, a dose per an amount, dimensions, inches, a mark out of its top
        ("La batería tiene 4500 mAh; jarabe de 250 mg/5 ml; ferritina en 320 pg/ml y glucosa en 5,4 mmol/L.", "La batería "
         "tiene cuatro mil quinientos miliamperios hora; jarabe de doscientos cincuenta miligramos por cinco mililitros; "
         "ferritina en trescientos veinte picogramos por mililitro y glucosa en cinco coma cuatro milimoles por litro."),
        ("Las baldosas miden 30×60cm, la mesa 80 x 120 cm y el monitor 27\". Sacó un 95/100 y un 8/10.", "Las baldosas "
         "miden treinta por sesenta centímetros, la mesa ochenta por ciento veinte centímetros y el monitor veintisiete "
         "pulgadas. Sacó un noventa y cinco sobre cien y un ocho sobre diez."),
        ("El tubo mide 3/4\", tome 1000 UI de vitamina D y 150 mcg de yodo; pulso de 72 lpm.", "El tubo mide tres cuartos de "
         "pulgada, tome mil unidades internacionales de vitamina D y ciento cincuenta microgramos de yodo; pulso de setenta y "
         "dos latidos por minuto."),
        # a number over a year or a grouped number over a slash is a reference (barra); a score written '2 x 0'
        ("Según el Real Decreto 1619/2012 y la Ley 39/2015, el Betis ganó 2 x 0; el expediente 47-0381 sigue abierto.", "Según el Real "
         "Decreto mil seiscientos diecinueve barra dos mil doce y la Ley treinta y nueve barra dos mil quince, el Betis ganó dos a cero; "
         "el expediente cuatro siete cero tres ocho uno sigue abierto."),
        ("El portátil tiene 16 GB y una batería de 56 Wh; tarda 40 min., luego carga.", "El portátil tiene dieciséis gigabytes y una "
         "batería de cincuenta y seis vatios hora; tarda cuarenta minutos, luego carga."),
        # an abbreviated weekday after the range's partner ('al', 'y') read; its period that ends the sentence kept once
        ("Atendemos del lun. al vie. Los sábados, entre sáb. y dom.", "Atendemos del lunes al viernes. Los sábados, entre sábado y domingo."),
        # a product before '=' reads its 'x' as '×' does
        ("Si 2 x 3 = 6, entonces 1 x 3 = 3.", "Si dos por tres igual a seis, entonces uno por tres igual a tres."),
        # a Roman numeral after a room's noun is its number; after a king's name, his ordinal
        ("El taller es en el aula IV y la sala III; Carlos III la fundó.", "El taller es en el aula cuatro y la sala tres; Carlos tercero la fundó."),
        # letters in capitals stay capitals; in a sentence past :30 the minutes plain; a final abbreviation's period kept once
        ("El tren AV 5120 sale del andén C4 a las 21:40, IVA incl.", "El tren A V cinco mil ciento veinte sale del andén C cuatro a las veintiuna cuarenta, IVA incluido."),
        # 'incl.' agrees with the noun before it in gender and number
        ("El piso cuesta 650 €, gastos incl.; el menú, 14 €, bebidas incl.",
         "El piso cuesta seiscientos cincuenta euros, gastos incluidos; el menú, catorce euros, bebidas incluidas."),
        # a decimal after an article's noun is that noun's value; the word after it is no noun it counts
        ("El coeficiente 2,31 resulta bajo y la nota 7,5 aprueba.",
         "El coeficiente dos coma treinta y uno resulta bajo y la nota siete coma cinco aprueba."),
        ("Abrimos a las 8:30 y cerramos a las 20:30.", "Abrimos a las ocho y media y cerramos a las veinte treinta."),
        ("La dieta da 1800 kcal y el pulso baja a 64 bpm.", "La dieta da mil ochocientas kilocalorías y el pulso baja a sesenta y "
         "cuatro latidos por minuto."),
        ("Los trenes pasan cada 7-9 minutos y unos 3-4 días.", "Los trenes pasan cada siete a nueve minutos y unos tres a cuatro días."),
        ("Quédese entre 1.800 y 2.000 kcal al día.", "Quédese entre mil ochocientas y dos mil kilocalorías al día."),
        ("Su reserva n.º 7731 y la factura número 2045; la reserva n.º 12.", "Su reserva número siete siete tres uno y la factura "
         "número dos cero cuatro cinco; la reserva número doce."),
        # a Roman numeral after a chapter's word, abbreviated or not, is its number; eras; a fitness abbreviation
        # but not a club's; the US dollar's code in full, as NeMo reads it
        ("Según el cap. IV y la sección II, fue en el 79 d.C. o el 44 a. C.; su FC de 150 lpm y el FC Barcelona; "
         "89 USD.", "Según el capítulo cuatro y la sección dos, fue en el setenta y nueve después de Cristo o el "
         "cuarenta y cuatro antes de Cristo; su Frecuencia Cardiaca de ciento cincuenta latidos por minuto y el FC "
         "Barcelona; ochenta y nueve dólares estadounidenses."),
        # a booking code of capitals and lone digits is spelled sign by sign, also where it starts with a digit
        ("Su localizador es 8XK2PL o X7KP4M.", "Su localizador es ocho X K dos P L o X siete K P cuatro M."),
        # a plate or road of capitals and numbers joined by hyphens: the letters spelled, the numbers read
        ("Tome la AP-7 y la M-30; su coche 1234-BCD está listo.", "Tome la A P siete y la M treinta; su coche mil "
         "doscientos treinta y cuatro B C D está listo."),
        # half an hour written as a decimal is said as a half: 'una hora y media', 'media hora'
        ("Dura 1,5 horas, el viaje 2,5 h y la espera 0,5 horas.", "Dura una hora y media, el viaje dos horas y media y la "
         "espera media hora."),
        # two years joined by a hyphen are a range, not a telephone number
        ("Datos de 2019-2023; llame al 3333-4444.", "Datos de dos mil diecinueve a dos mil veintitrés; llame al tres tres tres "
         "tres cuatro cuatro cuatro cuatro."),
        # an amount in thousands names its currency without "de"; in millions with it
        ("Cubre hasta 100 mil € y USD 2 millones.", "Cubre hasta cien mil euros y dos millones de dólares estadounidenses."),
        # a number that names the noun or code before it counts none: "uno" before a verb, in no gender
        ("El vuelo IB 3171 sale del andén 1 y la línea 21 cierra; el autobús 31 llega a la habitación 21.",
         "El vuelo I B tres uno siete uno sale del andén uno y la línea veintiuno cierra; el autobús treinta y uno "
         "llega a la habitación veintiuno."),
        # a postcode before its town digit by digit; data rates in full
        ("Oficina en la calle Mayor 5, 28013 Madrid, y otra en Gran Vía 1, 08001 Barcelona; fibra de 1 Gbps y 300 Mbps.",
         "Oficina en la calle Mayor cinco, dos ocho cero uno tres Madrid, y otra en Gran Vía uno, cero ocho cero cero uno "
         "Barcelona; fibra de un gigabit por segundo y trescientos megabits por segundo."),
        ("Sin datos la velocidad baja a 128 kbps.", "Sin datos la velocidad baja a ciento veintiocho kilobits por segundo."),
        # pesetas are feminine, written 'ptas' or 'pta'; 'esq.' is the corner of a street
        ("En 1990 costaba 21 ptas y luego 1 pta más; la tienda está en Alcalá 182, esq. Goya.",
         "En mil novecientos noventa costaba veintiuna pesetas y luego una peseta más; la tienda está en Alcalá ciento "
         "ochenta y dos, esquina Goya."),
        # four digits after a year word are a year, not a count of the verb after them; a noun or an amount still counts
        ("Desde 1998 trabaja aquí y en 2001 llegaba tarde; hubo hasta 1200 personas y 6.000 € de premio.",
         "Desde mil novecientos noventa y ocho trabaja aquí y en dos mil uno llegaba tarde; hubo hasta mil doscientas "
         "personas y seis mil euros de premio."),
        ("El empate llegó en el 90'+3.", "El empate llegó en el noventa más tres."),
        # a time range after a date keeps its 'de'
        ("Abrimos el viernes 3 de marzo de 9:00 a 14:00 y el 5 de abril de 2025.", "Abrimos el viernes "
         "tres de marzo de nueve a catorce y el cinco de abril de dos mil veinticinco."),
        # a day and month without zeros: a date after a date word or where the day is past 12, else a fraction
        ("El concierto del 21/3 en Madrid, hasta el 28/2.",
         "El concierto del veintiuno de marzo en Madrid, hasta el veintiocho de febrero."),
        ("Abrimos desde el 5/10 a las 9:00; el pago vence el 15/4.",
         "Abrimos desde el cinco de octubre a las nueve; el pago vence el quince de abril."),
        ("Tomó 1/2 vaso; los 2/3 de los votos, nota 8/10.",
         "Tomó medio vaso; los dos tercios de los votos, nota ocho sobre diez."),
        ('Compre 2,5 kg de patatas y 1,5 l de leche; la ruta tiene 3,5 km y dura 1,5 h.',
         'Compre dos kilos y medio de patatas y un litro y medio de leche; la ruta tiene tres kilómetros y medio y dura una hora y media.'),
        ('La mesa mide 2x1,5 m y el horno gasta 12,5 kWh.',
         'La mesa mide dos por uno coma cinco metros y el horno gasta doce coma cinco kilovatios hora.'),
        ('Envíe el sobre al CP 41001 o al C.P. 08001; es un ático de 2 hab. y 1 hab. de invitados.',
         'Envíe el sobre al código postal cuatro uno cero cero uno o al Código Postal cero ocho cero cero uno; es un ático de dos habitaciones y una habitación de invitados.'),
        ('Los km extra se cobran aparte.',
         'Los kilómetros extra se cobran aparte.'),
        ('La línea de 220 kV cruza el valle.',
         'La línea de doscientos veinte kilovoltios cruza el valle.'),
        # weekdays by their letter or abbreviation joined by 'a' or a dash; a price over a noun 'por' it; 'h' after a plain time
        ('La tienda abre de M a S y de lun a jue; el taller, L-J; el curso cuesta 40 €/alumno y empieza a las 18:45 h.',
         'La tienda abre de martes a sábado y de lunes a jueves; el taller, de lunes a jueves; el curso cuesta cuarenta euros '
         'por alumno y empieza a las dieciocho cuarenta y cinco horas.'),
        ('Lo firma el Ayto. y abre a las 10:30 h; expediente n.º 2026/341.', 'Lo firma el Ayuntamiento y abre a las diez y media; '
         'expediente número dos mil veintiséis barra trescientos cuarenta y uno.'),
        # a Roman numeral closing a quoted title is a sequel's number, unless it follows a ruler's name
        ('Ponen «Shrek III» y «La corte de Carlos IV».', 'Ponen «Shrek tres» y «La corte de Carlos cuarto».'),
        # a ruler's numeral in a quoted title stays his; 'ha' before a participle is the verb
        ("Hoy «Enrique IV»; el n.º 4 ha ganado en 12 ha de viñas.",
         "Hoy «Enrique cuarto»; el número cuatro ha ganado en doce hectáreas de viñas."),
        # a Roman numeral after a course's name is its number, after a ruler's his ordinal; decibels
        ("La asignatura Física General I empieza hoy, y el motor hace 60 dB; Felipe VI inaugura el curso.",
         "La asignatura Física General uno empieza hoy, y el motor hace sesenta decibelios; Felipe sexto inaugura el curso."),
        # a price per kilo as said ('el kilo'); a half of a kilo 'medio kilo'
        ("Las cerezas, a 5,90 €/kg; compré ½ kg.", "Las cerezas, a cinco euros con noventa céntimos el kilo; compré medio kilo."),
        # an address without a number: 's/n' sin número
        ("Plaza Mayor, s/n, Salamanca.", "Plaza Mayor, sin número, Salamanca."),
        # a car's plate after 'matrícula': its four digits one by one
        ("El coche con matrícula 3057 BCD está mal aparcado.", "El coche con matrícula tres cero cinco siete BCD está mal aparcado."),
        # a match's sets in a list, one not rising or after a word of a match: its score, never ranges
        ("Perdió por 4-6, 6-3 y 2-6 en la segunda ronda.",
         "Perdió por cuatro a seis, seis a tres y dos a seis en la segunda ronda."),
        ("El dobles cayó 4-6, 2-6 ante los campeones.", "El dobles cayó cuatro a seis, dos a seis ante los campeones."),
        # 'cáps.' after a count: capsules, feminine ('una cápsula'); an era's abbreviation ending the sentence keeps its period
        ("Cada envase trae 1 cáps. y la caja grande, 30 cáps.; el templo se levantó en el 480 a. C.",
         "Cada envase trae una cápsula y la caja grande, treinta cápsulas; el templo se levantó en el cuatrocientos ochenta "
         "antes de Cristo."),
        # a time with seconds after a word that is no clock cue: a race's time, hours, minutes and seconds all read
        ("Terminó la carrera en 3:05:41, dos minutos por detrás, y el segundo en 3:07:02.",
         "Terminó la carrera en tres horas cinco minutos y cuarenta y un segundos, dos minutos por detrás, y el segundo en "
         "tres horas siete minutos y dos segundos."),
        # a plus sign before a number is read, as a minus is
        ("Ventas al alza (+4,2 %), costes a la baja (-1,5 %).",
         "Ventas al alza (más cuatro coma dos por ciento), costes a la baja (menos uno coma cinco por ciento)."),
        # a race's time in primes (hours 'h', minutes ', seconds "): its parts named, no inches
        ("Ganó en 1h58'07\", por delante de quien llegó en 59'40\".",
         "Ganó en una hora cincuenta y ocho minutos y siete segundos, por delante de quien llegó en cincuenta y nueve "
         "minutos y cuarenta segundos."),
        # a score after an article before its opponent, its one bare ('uno'); a flight's number digit by digit
        ("Tras el 3-1 contra el Valencia, el equipo vuelve en el vuelo VY 1284 desde la puerta D8.",
         "Tras el tres a uno contra el Valencia, el equipo vuelve en el vuelo V Y uno dos ocho cuatro desde la puerta "
         "D ocho."),
        # a pair of years in brackets after a name, a life or a reign: years, joined by 'a', never a telephone number
        ("La exposición recuerda a Isabel I (1451–1504) y a Goya (1746-1828).",
         "La exposición recuerda a Isabel primera (mil cuatrocientos cincuenta y uno a mil quinientos cuatro) y a Goya "
         "(mil setecientos cuarenta y seis a mil ochocientos veintiocho)."),
        # 'CV' of an engine is 'caballos'
        ("Vendo Golf 2.0 TDI de 150 CV; la moto tiene 1 CV más.",
         "Vendo Golf dos coma cero TDI de ciento cincuenta caballos; la moto tiene un caballo más."),
        # 'h' after a morning's time with minutes: the minutes joined by 'y', no 'horas' after them
        ("Sale a las 7:50 h y vuelve a las 18:40 h; el control abre a las 11:35 h.",
         "Sale a las siete y cincuenta y vuelve a las dieciocho cuarenta horas; el control abre a las once y treinta y cinco."),
        # in a sentence a morning's round ten after :30 joined by 'y'; its other minutes plain
        ("El bus sale a las 9:50, el tren a las 10:40 y el ferri a las 7:35.",
         "El bus sale a las nueve y cincuenta, el tren a las diez y cuarenta y el ferri a las siete treinta y cinco."),
        # abbreviated weekdays in a list, joined by commas and 'y', are all days
        ("La piscina abre mar., jue. y sáb. por la mañana.", "La piscina abre martes, jueves y sábado por la mañana."),
        # 'c/u' of a price: cada uno
        ("Las empanadas cuestan 2 € c/u.", "Las empanadas cuestan dos euros cada uno."),
        # a Roman numeral after 'y' and one read is read as that one is
        ("Estudiamos los siglos XV y XVI en clase.", "Estudiamos los siglos quince y dieciséis en clase."),
        # a year before a verb counts nothing: no gender of the noun before it, no 'veintiún'
        ("La cuota de 2021 subió y la tarifa 2031 baja.",
         "La cuota de dos mil veintiuno subió y la tarifa dos mil treinta y uno baja."),
        # a part of a book or course numbered in Roman numerals: a cardinal ('tema IV' cuatro)
        ("Repase la lección VII y la unidad III.", "Repase la lección siete y la unidad tres."),
        # a range of a clock time and a bare hour reads both ends as times, as two clock times are read
        ("Horario de 7:30-9 h; los sábados, 10-13:30.",
         "Horario de siete y media a nueve horas; los sábados, de diez a trece treinta."),
        # 'ej.' ejemplo, 'kVA'
        ("Un generador de, por ej., 8 kVA.", "Un generador de, por ejemplo, ocho kilovoltamperios."),
    ],
    "pt": [
        # a number over a smaller one is a reference, no share
        ("A nota fiscal NF 2025/81 foi emitida hoje.",
         "A nota fiscal N F dois mil e vinte e cinco barra oitenta e um foi emitida hoje."),
        # a blood pressure after 'tensão', 'pressão': 'por'; a feminine noun '-ão' ends, singular or plural ('demãos')
        ("A tensão arterial era 13/9 e pintou 2 demãos em 2 regiões.",
         "A tensão arterial era treze por nove e pintou duas demãos em duas regiões."),
        # a running pace after its slash: minutes and seconds per kilometer, never a clock
        ("Fez a prova a 5:08 min/km e o treino a 4:40/km.",
         "Fez a prova a cinco minutos e oito segundos por quilômetro e o treino a quatro minutos e quarenta segundos "
         "por quilômetro."),
        # a unit's symbol after an article or 'por' with no number is the unit's name
        ("O m² no centro custa R$ 9.000 e o kg do café, R$ 40; frete por km.",
         "O metro quadrado no centro custa nove mil reais e o quilo do café, quarenta reais; frete por quilômetro."),
        # a capital A after a number and a space is amperes; written against the number a letter
        ("O carregador (2 A) e a tomada de 16 A; a porta 4A e a fila 12A.",
         "O carregador (dois amperes) e a tomada de dezesseis amperes; a porta quatro A e a fila doze A."),
        ("Moro no apartamento 12 A, bloco 3 A; o disjuntor é de 25 A.",
         "Moro no apartamento doze A, bloco três A; o disjuntor é de vinte e cinco amperes."),
        # a scale's letters against a currency ('80 M€' milhões, 'R$ 40 mi', 'R$ 3 bi')
        ("O clube pagou 80 M€ pelo atacante; a reforma custou R$ 40 mi e o estádio, R$ 3 bi.",
         "O clube pagou oitenta milhões de euros pelo atacante; a reforma custou quarenta milhões de reais e o estádio, "
         "três bilhões de reais."),
        # the cents of an amount in euros, Portugal's currency, are 'cêntimos'; Brazil's real keeps 'centavos'
        ("A portagem custa 2,35 € e o café EUR 0,80; no Rio, R$ 4,60.",
         "A portagem custa dois euros e trinta e cinco cêntimos e o café oitenta cêntimos; "
         "no Rio, quatro reais e sessenta centavos."),
        # a season or a school year: both years; after 'nº' a file's number, 'barra', a zero-led part digit by digit
        ("O ano letivo 2025/26 e a época 2024–2025 acabaram; o processo nº 2025/01234 segue.",
         "O ano letivo dois mil e vinte e cinco vinte e seis e a época dois mil e vinte e quatro dois mil e vinte e "
         "cinco acabaram; o processo número dois mil e vinte e cinco barra zero um dois três quatro segue."),
        ("Veja o capítulo 3.2, sala 2.14.", "Veja o capítulo três ponto dois, sala dois ponto catorze."),
        # a Roman numeral after an item of a text is its number; a unit whose symbol is a word, the word's plural
        ("Leia o item IV do edital; a caldeira trabalha a 6 bar.",
         "Leia o item quatro do edital; a caldeira trabalha a seis bares."),
        ("Código BRX2741, processo RC-2026/0457.",
         "Código B R X dois sete quatro um, processo R C dois zero dois seis barra zero quatro cinco sete."),
        # a parcel's code of two letters, nine digits and its country's two letters, sign by sign
        ("O código de rastreio é LX 552 310 874 BR, para 2 pess., ref. 12.",
         "O código de rastreio é L X cinco cinco dois três um zero oito sete quatro B R, para duas pessoas, referência doze."),
        ("São 2.500 alunos", "São dois mil e quinhentos alunos"),
        ("Chegaram 1.234.567", "Chegaram um milhão duzentos e trinta e quatro mil quinhentos e sessenta e sete"),
        ("Foi a 3ª vez", "Foi a terceira vez"),
        ("o 21º lugar", "o vigésimo primeiro lugar"),
        ("Mede 4,75 m", "Mede quatro vírgula setenta e cinco metros"),
        ("Entrega na terça, 7/4, ou na quinta-feira, 9/4.", "Entrega na terça, sete de abril, ou na quinta-feira, nove de abril."),
        ("Junte ½ copo de leite e 2 copos e ½ de água.", "Junte meio copo de leite e dois copos e meio de água."),
        ("A entrega será entre 9h15 e 11h, e a visita entre 14h30 e 16h.", "A entrega será entre nove e quinze e onze horas, e a visita entre "
         "catorze e trinta e dezesseis horas."),
        ("O código de rastreio é 5530 9184.", "O código de rastreio é cinco cinco três zero nove um oito quatro."),
        ("Atendemos seg.–sex. e de sáb. a dom.", "Atendemos segunda a sexta e de sábado a domingo."),
        ("A mala mede 55 x 35 x 25 cm e a caixa 1,2 x 0,8 x 0,5 m.", "A mala mede cinquenta e cinco por trinta e cinco por vinte e "
         "cinco centímetros e a caixa um vírgula dois por zero vírgula oito por zero vírgula cinco metros."),
        ("Subiu 12,5%", "Subiu doze vírgula cinco por cento"),
        ("Use 2/3 da farinha", "Use dois terços da farinha"),
        ("Digite o código 730592; a senha: 0852, cartão final 2046, conforme o Código Civil de 2002.", "Digite o código sete "
         "três zero cinco nove dois; a senha: zero oito cinco dois, cartão final dois zero quatro seis, conforme o Código "
         "Civil de dois mil e dois."),
        ("A bateria tem 4500 mAh; xarope de 250 mg/5 ml; ferritina em 320 pg/ml e glicemia em 5,4 mmol/L.", "A bateria tem "
         "quatro mil e quinhentos miliamperes-hora; xarope de duzentos e cinquenta miligramas por cinco mililitros; ferritina "
         "em trezentos e vinte picogramas por mililitro e glicemia em cinco vírgula quatro milimols por litro."),
        ("O piso é de 30×60cm, a mesa tem 80 x 120 cm e a tela 27\". Tirou 95/100 e 8/10; ele mede 1,78 m.", "O piso é de "
         "trinta por sessenta centímetros, a mesa tem oitenta por cento e vinte centímetros e a tela vinte e sete polegadas. "
         "Tirou noventa e cinco sobre cem e oito sobre dez; ele mede um vírgula setenta e oito metros."),
        ("O cano mede 3/4\", tome 1000 UI de vitamina D e 150 mcg de iodo; pulso de 72 bpm.", "O cano mede três quartos de "
         "polegada, tome mil unidades internacionais de vitamina D e cento e cinquenta microgramas de iodo; pulso de setenta e "
         "dois batimentos por minuto."),
        ("Custa R$ 49,90", "Custa quarenta e nove reais e noventa centavos"),
        ("Pagou € 2", "Pagou dois euros"),
        ("O pacote chega em 3 de maio.", "O pacote chega em três de maio."),
        ("Nasceu em 07/09/1822", "Nasceu em sete de setembro de mil oitocentos e vinte e dois"),
        ("Em 1 de maio", "Em primeiro de maio"),
        # after the article the hour goes without "horas" before its minutes; alone it keeps it
        ("Às 8h15", "Às oito e quinze"),
        ("Embarque às 19h45, das 7h às 10h30; 12h30", "Embarque às dezenove e quarenta e cinco, das sete às dez e meia; doze horas e trinta"),
        # after a cue a half hour up to noon "e meia", after noon "e trinta"; a morning range from a half hour ends on a
        # bare hour
        ("O check-in abre às 6h30 e o café é das 7h30 às 10h; o jantar, às 19h30.", "O check-in abre às seis e meia e o "
         "café é das sete e meia às dez; o jantar, às dezenove e trinta."),
        # hour 0 after a word of one point in time is midnight; after 'às' (plural) a count of hours
        ("Aberto até 0h, desde 0h15; das 22h às 0h.", "Aberto até meia-noite, desde meia-noite e quinze; das vinte e duas às zero horas."),
        # ranges: "de" before the first number, none after a preposition or article; CEP digit by digit
        ("O estorno leva 5–7 dias, em 2-3 dias.", "O estorno leva de cinco a sete dias, em dois a três dias."),
        ("CEP 80020-090, multas de 300-1000 reais", "CEP oito zero zero dois zero zero nove zero, multas de trezentos a mil reais"),
        # decimals as a number after their zeros, a rate's and a measure's alike; a longer run digit by digit
        ("Juros de 1,99% e 0,05%; mede 1,85 m, pi é 3,1416", "Juros de um vírgula noventa e nove por cento e zero vírgula zero cinco por cento; mede um vírgula oitenta e cinco metros, pi é três vírgula um quatro um seis"),
        # A bare decimal digit by digit, as before a scale word; a fraction of a hundred is no mark out of it.
        ("O índice ficou em 3,14.", "O índice ficou em três vírgula um quatro."),
        ("Tirou 2/100 e depois 95/100.", "Tirou dois centésimos e depois noventa e cinco sobre cem."),
        ("Às 13:00", "Às treze horas"),
        ("Pesa 2 kg", "Pesa dois quilos"),
        ("Baixa 10 GB/s e 2 l/min", "Baixa dez gigabytes por segundo e dois litros por minuto"),
        ("Faz 30 °C", "Faz trinta graus celsius"),
        # the DDD in brackets as a number, the groups digit by digit
        ("Ligue para (21) 98765-4321", "Ligue para vinte e um nove oito sete seis cinco quatro três dois um"),
        ("Ligue para (11) 3333-4444.", "Ligue para onze três três três três quatro quatro quatro quatro."),
        ("+55 (61) 2020-3030", "mais cinco cinco sessenta e um dois zero dois zero três zero três zero"),
        ("Fone (0411) 0234-1234", "Fone zero quatro um um zero dois três quatro um dois três quatro"),
        ("Escreva para joao@empresa.com.br", "Escreva para joao arroba empresa ponto com ponto br"),
        ("O Dr. Silva", "O Doutor Silva"),
        ("no século XX", "no século vinte"),
        ("A placa 8ABC123 está anotada.", "A placa oito A B C um dois três está anotada."),  # a plate sign by sign
        # a ruler above ten by the number, up to ten by the ordinal
        ("O papa Pio XII sucedeu a Pio XI e Leão XIII.", "O papa Pio doze sucedeu a Pio onze e Leão treze."),
        ("Dom Manuel I e D. Sebastião", "Dom Manuel primeiro e Dom Sebastião"),
        ("Cartão com final 4821, protocolo KD-7352, a XII Feira, 2–8 °C.", "Cartão com final quatro oito dois um, "
         "protocolo K D sete três cinco dois, a décima segunda Feira, de dois a oito graus celsius."),
        ("Restam 21 poltronas de 240.", "Restam vinte e uma poltronas de duzentas e quarenta."),
        ("A Lei nº 13.709/2018 e o Decreto 7.962/13 valem; o Grêmio ganhou de 2 x 0 e o protocolo 12-0456 foi aberto.", "A Lei número "
         "treze mil setecentos e nove barra dois mil e dezoito e o Decreto sete mil novecentos e sessenta e dois barra treze valem; o "
         "Grêmio ganhou de dois a zero e o protocolo um dois zero quatro cinco seis foi aberto."),
        ("A bateria tem 60 Wh e carrega em 45 min., depois desliga.", "A bateria tem sessenta watts-hora e carrega em quarenta e "
         "cinco minutos, depois desliga."),
        # identity numbers digit by digit, as their owners read them out and as the CEP already reads (no group is an amount, no
        # mark is spoken): CPF '123.456.789-09', RG '12.345.678-9', CNPJ '12.345.678/0001-90'; CEP '01310-100'
        ("Meu CPF é 123.456.789-09 e o RG 12.345.678-9; CNPJ 12.345.678/0001-90, CEP 01310-100.", "Meu CPF é um dois três quatro "
         "cinco seis sete oito nove zero nove e o R G um dois três quatro cinco seis sete oito nove; CNPJ um dois três quatro cinco "
         "seis sete oito zero zero zero um nove zero, CEP zero um três um zero um zero zero."),
        # a range of numbers grouped by thousands, in the counted noun's gender; no dot read as part of a word
        ("Esperamos de 1.000-2.000 pessoas.", "Esperamos de mil a duas mil pessoas."),
        # a range of amounts, its currency said once after it ('R$' before, '€' after)
        ("O aluguel fica entre R$ 1.500-2.000 por mês; a caução, 1.000–2.000 €.",
         "O aluguel fica entre mil e quinhentos e dois mil reais por mês; a caução, de mil a dois mil euros."),
        # an abbreviated weekday after 'à' closes a range of days; the hours after stay a range of hours
        ("Atendemos da seg. à sex., das 9h às 18h.", "Atendemos da segunda à sexta, das nove às dezoito horas."),
        ("A loja abre das 8h-12h aos sábados.", "A loja abre das oito horas às doze horas aos sábados."),
        # a noun joined by a hyphen gives its gender to the number it counts; a verb's compound stays masculine
        ("Suas 2 meias-entradas e 1 guarda-chuva somam R$ 38.", "Suas duas meias-entradas e um guarda-chuva somam trinta e oito reais."),
        ("Adicione 2 ½ xícaras de farinha.", "Adicione duas xícaras e meia de farinha."),
        # a Roman numeral after a room's noun is its number; after a king's name, his ordinal
        ("A prova é na sala IV, perto do auditório II; D. João VI a fundou.", "A prova é na sala quatro, perto do auditório dois; Dom João sexto a fundou."),
        # a Roman numeral before 'de' and a month is the day a street is named for
        ("Fica na Av. VII de Setembro, perto da R. I de Maio.", "Fica na Avenida sete de Setembro, perto da Rua um de Maio."),
        ("Use no máx. 3 sachês e no mín. 1 por dia.", "Use no máximo três sachês e no mínimo um por dia."),
        ("A dieta dá 1800 kcal e o pulso cai a 64 bpm.", "A dieta dá mil e oitocentas quilocalorias e o pulso cai a sessenta e "
         "quatro batimentos por minuto."),
        ("Os trens passam a cada 7-9 minutos.", "Os trens passam a cada sete a nove minutos."),
        # a Roman numeral after a chapter's word, abbreviated or not, is its number; eras; a fitness abbreviation
        # but not a club's
        ("Conforme o cap. IV e o título II, em 79 d.C. ou 44 a.C.; mantenha a FC entre 130 e 150 bpm; o FC Porto "
         "venceu.", "Conforme o capítulo quatro e o título dois, em setenta e nove depois de Cristo ou quarenta e "
         "quatro antes de Cristo; mantenha a Frequência Cardíaca entre cento e trinta e cento e cinquenta batimentos "
         "por minuto; o FC Porto venceu."),
        # a plate of capitals and numbers joined by hyphens: the letters spelled, the numbers read
        ("O carro com matrícula AA-12-BB e o 12-AB-34 estão prontos.", "O carro com matrícula A A doze B B e o doze A B "
         "trinta e quatro estão prontos."),
        # half an hour written as a decimal is said as a half
        ("A sessão dura 1,5 hora e o voo 2,5 horas.", "A sessão dura uma hora e meia e o voo duas horas e meia."),
        # a floor's side in full ('5.º esq.' quinto esquerdo, 'dto.' direito); two years joined by a hyphen are a range
        ("Mora no 5.º esq. e o escritório fica no 2.º Dto.; dados do período 2019-2023.", "Mora no quinto esquerdo e o "
         "escritório fica no segundo Direito; dados do período de dois mil e dezenove a dois mil e vinte e três."),
        # an amount in thousands names its currency without "de"; in millions with it
        ("A cobertura chega a R$ 100 mil, ou R$ 1,5 mil por mês, e o teto é de R$ 2 milhões.",
         "A cobertura chega a cem mil reais, ou um vírgula cinco mil reais por mês, e o teto é de dois milhões de reais."),
        ("O fundo tem 2 milhões de € e 1,5 bilhão de $.", "O fundo tem dois milhões de euros e um vírgula cinco bilhão de dólares."),
        # a number that names the noun before it counts none ('a linha 2' dois, 'o voo 21' vinte e um)
        ("A sala 2 fica ao lado e a linha 1 fecha às 23h; o voo 21 sai da plataforma 2.",
         "A sala dois fica ao lado e a linha um fecha às vinte e três horas; o voo vinte e um sai da plataforma dois."),
        # data rates in full; a number with a leading zero after 'n.º' digit by digit
        ("Fibra de 500 Mbps e 1 Gbps.", "Fibra de quinhentos megabits por segundo e um gigabit por segundo."),
        ("Depois da franquia, 64 kbps.", "Depois da franquia, sessenta e quatro kilobits por segundo."),
        ("Em 1990 morava em Lisboa e até 2003 trabalhava lá.",
         "Em mil novecentos e noventa morava em Lisboa e até dois mil e três trabalhava lá."),
        ("Pedido n.º 0482 e 19 de março de 18:00 às 20:00.",
         "Pedido número zero quatro oito dois e dezenove de março de dezoito horas às vinte horas."),
        ("Para o show do dia 21/3 no parque; vão até 28/2, e sai em 15/4.",
         "Para o show do dia vinte e um de março no parque; vão até vinte e oito de fevereiro, "
         "e sai em quinze de abril."),
        ("No dia 5/10 às 10h, a partir de 6/10 fechado.",
         "No dia cinco de outubro às dez horas, a partir de seis de outubro fechado."),
        ("Comeu 1/2 pizza, use 3/4 de xícara; cerca de 2/3 dos votos, nota 8/10.",
         "Comeu meia pizza, use três quartos de xícara; cerca de dois terços dos votos, nota oito sobre dez."),
        ('Compre 2,5 kg de batata e 1,5 l de leite; a trilha tem 3,5 km e a tábua 1,2 x 0,5 m.',
         'Compre dois quilos e meio de batata e um litro e meio de leite; a trilha tem três quilômetros e meio e a tábua um vírgula dois por zero vírgula cinco metros.'),
        ('Os km rodados entram na conta.',
         'Os quilômetros rodados entram na conta.'),
        ('A aula começa às 9h30 e tem duração de 1h30; o passeio dura 2h15 e a linha é de 13,8 kV.',
         'A aula começa às nove e meia e tem duração de uma hora e meia; o passeio dura duas horas e quinze minutos e a linha é de treze vírgula oito quilovolts.'),
        ('O empréstimo cobra 1,2% a.m., ou 15% a.a. sem IOF.',
         'O empréstimo cobra um vírgula dois por cento ao mês, ou quinze por cento ao ano sem IOF.'),
        # weekdays by their number; 'horas' once at a range's end; a time in h, min and s; a model's engine with 'ponto'
        ('Feira às 4ªs e 6ªs, na 2ª-feira não, das 7h às 13h e entre 15h e 18h; o Onix 1.4 faz a volta em 1h02min15s.',
         'Feira às quartas e sextas, na segunda-feira não, das sete às treze horas e entre quinze e dezoito horas; o Onix um '
         'ponto quatro faz a volta em uma hora, dois minutos e quinze segundos.'),
        ('Ela correu a 4min45s/km, e o trajeto dura cerca de 2h20.', 'Ela correu a quatro minutos e quarenta e cinco '
         'segundos por quilômetro, e o trajeto dura cerca de duas horas e vinte minutos.'),
        # a race's time and a pace written with colons, as the same list of hours, minutes and seconds
        ('A maratona terminou em 2:08:15, num ritmo de 4:55 min/km.', 'A maratona terminou em duas horas, oito minutos e '
         'quinze segundos, num ritmo de quatro minutos e cinquenta e cinco segundos por quilômetro.'),
        ("A disciplina de Álgebra Linear II começa amanhã, com ruído de 50 dB; Dom João VI chegou em 1808.",
         "A disciplina de Álgebra Linear dois começa amanhã, com ruído de cinquenta decibéis; Dom João sexto chegou em mil "
         "oitocentos e oito."),
        # an address without a number: 's/n' sem número
        ("Avenida Brasil, s/n, Centro.", "Avenida Brasil, sem número, Centro."),
        # 'c/' com and 's/' sem before a word, 'conj.' an office's conjunto
        ("Sai c/ peças, em 10x s/ juros, no conj. 21.", "Sai com peças, em dez vezes sem juros, no conjunto vinte e um."),
        # capitals are an acronym, never a unit folded from lower case: 'o PC' a computer, not parsec
        ("Desligue o PC antes de sair.", "Desligue o PC antes de sair."),
        # a ruler's numeral in a quoted title stays his
        ("A peça «D. João VI» estreia hoje.", "A peça «Dom João sexto» estreia hoje."),
        # a match's sets in a list, one not rising or after a word of a match: its score, never ranges; after such a
        # word also '3 x 1'
        ("Ganhou por 7-5, 4-6 e 6-1 na estreia.", "Ganhou por sete cinco, quatro seis e seis um na estreia."),
        ("O Palmeiras venceu por 3 x 1 e o Santos perdeu 0x2.",
         "O Palmeiras venceu por três a um e o Santos perdeu zero a dois."),
        # an abbreviation's period that also ends the sentence is read as its end
        ("O templo foi erguido em 480 a.C.", "O templo foi erguido em quatrocentos e oitenta antes de Cristo."),
        # 'comp.' after a count: tablets; 'dorm.' bedrooms
        ("Caixa com 20 comp. e 1 comp. extra; casa de 3 dorm. e 1 dorm. de hóspedes.",
         "Caixa com vinte comprimidos e um comprimido extra; casa de três dormitórios e um dormitório de hóspedes."),
        ("Vendas em alta (+4,2%), custos em queda (-1,5%).",
         "Vendas em alta (mais quatro vírgula dois por cento), custos em queda (menos um vírgula cinco por cento)."),
        # 'x' between two small numbers after an article, before the opponent: a score; a flight's number digit by digit
        ("Depois do 3 x 1 contra o Santos, o time embarca no voo G3 2075; a foto 3x4 custa R$ 15.",
         "Depois do três a um contra o Santos, o time embarca no voo G três dois zero sete cinco; a foto três por "
         "quatro custa quinze reais."),
        # a whole hour opening a range says no 'horas', whether the range ends on a whole hour or not
        ("Atendimento das 9h às 11h30 e das 13h às 17h45, sábados das 8h às 12h.",
         "Atendimento das nove às onze e meia e das treze às dezessete e quarenta e cinco, sábados das oito às doze horas."),
        # a pace: a race's time over a unit is 'por' the unit
        ("Manteve 4'15\"/km no início e 4'40\"/km no fim.",
         "Manteve quatro minutos e quinze segundos por quilômetro no início e quatro minutos e quarenta segundos por quilômetro no fim."),
        # times listed after a clock cue are each read as after it: no 'horas' on the later ones
        ("As aulas começam às 7h50, 9h40 e 13h10.", "As aulas começam às sete e cinquenta, nove e quarenta e treze e dez."),
        # 'c/u' of a price: cada um
        ("As camisetas saem por R$ 35 c/u.", "As camisetas saem por trinta e cinco reais cada um."),
        # a Roman numeral after 'e' and one read is read as that one is
        ("Leiam os capítulos IX e X até segunda.", "Leiam os capítulos nove e dez até segunda."),
        # a year before a verb counts nothing: not in the gender of the noun before it ('para 2027 custa' dois mil)
        ("A anuidade para 2031 sobe e a taxa 2022 cai.",
         "A anuidade para dois mil e trinta e um sobe e a taxa dois mil e vinte e dois cai."),
        # a service number's '0800' zero oitocentos, the rest digit by digit
        ("Reclamações pelo 0800 940 3321.", "Reclamações pelo zero oitocentos nove quatro zero três três dois um."),
        # a range of a clock time and a bare hour reads both ends as times, as two clock times are read
        ("Atendimento das 7:30-9h; aos sábados, 9-12:30.",
         "Atendimento das sete e meia às nove horas; aos sábados, das nove horas às doze e meia."),
        # 'incl.' in the gender and number of the noun before; a numbered lesson in Roman numerals a cardinal
        ("Diária de R$ 300, taxas incl.; veja a lição IV.",
         "Diária de trezentos reais, taxas incluídas; veja a lição quatro."),
    ],
    "ru": [
        # an abbreviation after a number and a hyphen stays in capitals, as alone, for the voice to name its letters
        ("Сдайте 3-НДФЛ и 2-НДФЛ в МФЦ.", "Сдайте три НДФЛ и два НДФЛ в МФЦ."),
        # a blood pressure after 'давление' is read 'на', never 'дробь'
        ("Давление у него 145/95, пульс 80.", "Давление у него сто сорок пять на девяносто пять, пульс восемьдесят."),
        # a race's time after 'за' in the accusative (одну минуту); a pace per kilometer, its minutes and seconds named
        ("Он прошёл дистанцию за 3:21:41, в среднем по 4:45 мин/км.",
         "Он прошёл дистанцию за три часа двадцать одну минуту сорок одну секунду, в среднем по четыре минуты сорок "
         "пять секунд на километр."),
        ("Вторую половину она пробежала за 1:31:22 в темпе 4:20/км.",
         "Вторую половину она пробежала за один час тридцать одну минуту двадцать две секунды в темпе четыре минуты "
         "двадцать секунд на километр."),
        # 'л. с.' horsepower and 'з. е.' credits agree with their count; 'г. в.' after a year is its noun and 'выпуска'
        ("Трактор 1981 г.в. на 21 л. с., мотоцикл с 5 л.с., курс на 3 з. е. и не менее 1 з.е.",
         "Трактор тысяча девятьсот восемьдесят первого года выпуска на двадцать одну лошадиную силу, мотоцикл с пятью "
         "лошадиными силами, курс на три зачётные единицы и не менее одной зачётной единицы."),
        # every form of 'оканчивающийся на', 'заканчивающийся на' cues digits one by one
        ("Счёт, заканчивающийся на 3907, и полис, оканчивающимся на 6158.",
         "Счёт, заканчивающийся на три девять ноль семь, и полис, оканчивающимся на шесть один пять восемь."),
        # a capital А after a number and a space is amperes; written against the number a letter ('752А')
        ("Розетка на 16 А, автомат 10 А, поезд № 752А отправляется.",
         "Розетка на шестнадцать ампер, автомат десять ампер, поезд номер семьсот пятьдесят два а отправляется."),
        # a price per unit after a currency's abbreviation: 'за' the unit, one joined by a middle dot too ('кВт·ч')
        ("Вода 52,30 ₽/м³, свет 5,92 руб./кВт·ч, интернет 2 руб./ГБ.",
         "Вода пятьдесят два рубля тридцать копеек за кубический метр, свет пять рублей девяносто две копейки за "
         "киловатт-час, интернет два рубля за гигабайт."),
        ("Пришло 2 000 человек", "Пришло две тысячи человек"),
        # a quoted title's numeral: a sequel's a number, a ruler's his ordinal
        ("Сегодня «Гладиатор II», завтра «Генрих IV».", "Сегодня «Гладиатор два», завтра «Генрих Четвёртый»."),
        ("Рост 12,5%", "Рост двенадцать целых пять десятых процента"),
        ("Было 1 января. 3 мая.", "Было первого января. третьего мая."),
        ("Было 3 апр. 2024 и 5 сент.", "Было третьего апреля две тысячи двадцать четвёртого года и пятого сентября."),
        ("Всего 1.500", "Всего тысяча пятьсот"),
        ("Это 21-я попытка", "Это двадцать первая попытка"),
        ("В 90-х годах", "В девяностых годах"),
        ("на 5-м этаже", "на пятом этаже"),
        ("Вес 1,25", "Вес одна целая двадцать пять сотых"),
        ("Рост 3,5 %", "Рост три целых пять десятых процента"),
        ("Номер 8ABC123 записан.", "Номер восемь A B C один два три записан."),  # a plate sign by sign
        ("Стоит 5 руб. за штуку", "Стоит пять рублей за штуку"),
        ("Стоит 22 руб.", "Стоит двадцать два рубля."),
        ("Пробег 41 км", "Пробег сорок один километр"),
        ("Скорость 60 км/ч", "Скорость шестьдесят километров в час"),
        ("Встреча 12.04.2025", "Встреча двенадцатого апреля две тысячи двадцать пятого года"),
        ("В 2024 году", "В две тысячи двадцать четвёртом году"),
        ("Начало в 10:00", "Начало в десять часов"),
        ("Звоните 8-800-555-35-35", "Звоните восемь восемьсот пятьсот пятьдесят пять тридцать пять тридцать пять"),
        ("Пишите на ivan@mail.ru", "Пишите на ай ви эй эн собака эм эй ай эл точка ру"),
        ("XX век", "двадцатый век"),
        # a year is an ordinal after a preposition or alone on its line, a count before a noun
        ("Это было в 1974.", "Это было в тысяча девятьсот семьдесят четвёртом."),
        ("Работал с 1990 по 2005", "Работал с тысяча девятьсот девяностого по две тысячи пятый"),
        ("Пришло 1800 человек", "Пришло тысяча восемьсот человек"),
        ("1812", "тысяча восемьсот двенадцатом"),
        # 'N-х' before a word is a count in the genitive, a decade stays an ordinal
        ("Купил 2-х комнатную квартиру", "Купил двух комнатную квартиру"),
        ("В 80-х было иначе", "В восьмидесятых было иначе"),
        # a month name: the day agrees with the preposition before it
        ("Приезжайте к 5 мая", "Приезжайте к пятому мая"),
        ("Посылка придёт 3 мая, срок — 1 января.", "Посылка придёт третьего мая, срок — первого января."),
        ("Родился 12 января 2001 года", "Родился двенадцатого января две тысячи первого года"),
        ("Встреча в 16:30", "Встреча в шестнадцать тридцать"),
        # units, currencies written first, fractions, abbreviations, mail servers
        ("Частота 50 Гц, 5 кв. м и 3 м³", "Частота пятьдесят герц, пять квадратных метров и три кубических метра"),
        ("Шум 40 дБ, 15 °C", "Шум сорок децибел, пятнадцать градусов"),
        ("Цена $5 или USD 20", "Цена пять долларов или двадцать долларов"),
        ("Добавьте 1/2 л и 2 3/4 кг", "Добавьте одна вторая литра и две целых три четвёртых килограмма"),
        ("В V в. до н. э. и т. д.", "В пятом веке до нашей эры и так далее."),
        ("Пишите на olga@gmail.com", "Пишите на оу эл джи эй собака джи мейл точка ком"),
        ("Пишите на ivan@почта.рф", "Пишите на ай ви эй эн собака почта точка рф"),
        ("Книги, тетради и пр.", "Книги, тетради и прочие."),
        ("Дом на Пр-т Мира", "Дом на проспекте Мира"),
        ("Звоните +7(495)1234567", "Звоните плюс семь четыреста девяносто пять сто двадцать три сорок пять шестьдесят семь"),
        # two days that share a month: the first day waits for the month and is a date too
        ("Склад закрыт с 8 по 11 июня.", "Склад закрыт с восьмого по одиннадцатое июня."),
        ("Экзамены 20 и 21 января", "Экзамены двадцатого и двадцать первого января"),
        ("Конференция 14-16 октября в Казани", "Конференция с четырнадцатого по шестнадцатое октября в Казани"),
        ("Билеты на 2 марта", "Билеты на второе марта"),
        ("Комнаты 3 и 4 свободны", "Комнаты три и четыре свободны"),
        # the second day takes the case the first took; a preposition of its own gives its case
        ("Вылет на 6 или 7 апреля", "Вылет на шестое или седьмое апреля"),
        ("Готово к 9 и 10 июля, а 12 июля выходной", "Готово к девятому и десятому июля, а двенадцатого июля выходной"),
        ("Ремонт с 4 до 9 августа", "Ремонт с четвёртого до девятого августа"),
        # 'г.' is the year noun in the case the preposition gives it
        ("Школу построили в 1987 г. на окраине", "Школу построили в тысяча девятьсот восемьдесят седьмом году на окраине"),
        ("Цены растут с 2015 г. по 2020 г.", "Цены растут с две тысячи пятнадцатого года по две тысячи двадцатый год."),
        ("Закончим к 2030 г.", "Закончим к две тысячи тридцатому году."),
        ("Отчёт за 2019 г. готов", "Отчёт за две тысячи девятнадцатый год готов"),
        ("Родился 1990 г.", "Родился тысяча девятьсот девяностого года."),
        # a time of day takes the preposition's case
        ("Подъезжайте к 18:30", "Подъезжайте к восемнадцати тридцати"),
        ("Работаем до 21:00, обед с 13:00", "Работаем до двадцати одного часа, обед с тринадцати часов"),
        ("Будильник на 6:15 и к 7:00", "Будильник на шесть пятнадцать и к семи часам"),
        ("Поезд в 9:01", "Поезд в девять ноль один"),
        # a measure range: 'от … до …' in the genitive, the unit agreeing with the second number
        ("Добавьте 2-4 кг муки", "Добавьте от двух до четырёх килограммов муки"),
        ("Пробка 10–15 км", "Пробка от десяти до пятнадцати километров"),
        ("Скидка 5-21%", "Скидка от пяти до двадцати одного процента"),
        ("Груз 1-2 т, скорость 60-90 км/ч",
         "Груз от одной до двух тонн, скорость от шестидесяти до девяноста километров в час"),
        ("Стоит 300-500 руб. за штуку", "Стоит от трёхсот до пятисот рублей за штуку"),
        ("Повторить 2-3 раза", "Повторить два три раза"),  # no unit: the numbers as written
        # after a preposition or 'каждые' both ends alone in its case; a two-word preposition also after a verb
        ("Похудеть на 3-5 кг, доставка за 10–15 мин., автобус каждые 10–12 мин.", "Похудеть на три пять килограммов, доставка "
         "за десять пятнадцать минут, автобус каждые десять двенадцать минут."),
        ("Пульс держите в пределах 130–150 уд./мин, при 20–25 °C.", "Пульс держите в пределах ста тридцати ста пятидесяти "
         "ударов в минуту, при двадцати двадцати пяти градусах."),
        ("Сбросить на 3 – 5 кг, а не 3 – 5 кг.", "Сбросить на три пять килограммов, а не от трёх до пяти килограммов."),
        # a chapter's abbreviation in the case of the preposition, its Roman numeral a number; a street's
        ("Согласно гл. IV положения, как в разд. II договора; адрес — Невский пр., 28.", "Согласно главе четыре положения, как в "
         "разделе два договора; адрес — Невский проспект, двадцать восемь."),
        ("Пробка 10 – 15 км, уклон 2 - 4 %", "Пробка от десяти до пятнадцати километров, уклон от двух до четырёх процентов"),
        ("Было 5 - 3 = 2 и 7 — 9 человек", "Было пять - три равно два и семь — девять человек"),
        # a card's last digits, a reference, an adjective's instrumental, a lone I, a signed range, a postcode
        ("Карта заканчивается на 4821, обращение ТК-5720, с 2 детскими креслами.", "Карта заканчивается на четыре "
         "восемь два один, обращение Т К пять семь два ноль, с двумя детскими креслами."),
        ("Заявка КХ-2026-00481, код PK4471.", "Заявка К Х два ноль два шесть ноль ноль четыре восемь один, код P K "
         "четыре четыре семь один."),
        ("В I полугодии от +2 до +8 °C.", "В первом полугодии от плюс двух до плюс восьми градусов."),
        ("Адрес: 620014, г. Екатеринбург.", "Адрес: шестьсот двадцать ноль четырнадцать, город Екатеринбург."),
        # a fixed expression, no fraction; a temperature without its scale; a code's Latin capitals as written
        ("Поддержка доступна 24/7, сейчас в Казани −3 °C.", "Поддержка доступна двадцать четыре на семь, сейчас в Казани минус три градуса."),
        ("Код подтверждения A1B2C3, номер брони K4M8ZP.", "Код подтверждения A один B два C три, номер брони K четыре M восемь Z P."),
        # a code after its word and a spaced dash digit by digit; a price after one in its own case
        ("Ваш код — 482913, возврат — 500 ₽.", "Ваш код — четыре восемь два девять один три, возврат — пятьсот рублей."),
        # an abbreviated noun in the case of the preposition before it, past an adjective, or of 'см.'
        ("Мы на Невском пр., см. гл. 5.", "Мы на Невском проспекте, смотри главу пять."),
        # a wind's range read as its ends, with no 'от … до'
        ("Ветер 7–12 м/с, порывы до 15 м/с.", "Ветер семь двенадцать метров в секунду, порывы до пятнадцати метров в секунду."),
        ('Оплачен заказ на сумму 1 250 руб.; договор заключён под № 318, за № 12 ничего.',
         'Оплачен заказ на сумму тысячу двести пятьдесят рублей; договор заключён под номером триста восемнадцать, за номером двенадцать ничего.'),
        ('Ученики 7 «А» класса и 2 Б класса учатся в 3 «В» классе.',
         'Ученики седьмого «А» класса и второго Б класса учатся в третьем «В» классе.'),
        ('Офис открыт пн–пт и ср-вс; аренда 30 000 руб./мес. + свет, или 650 ₽/мес.',
         'Офис открыт с понедельника по пятницу и со среды по воскресенье; аренда тридцать тысяч рублей в месяц плюс свет, или шестьсот пятьдесят рублей в месяц.'),
        # after № a cardinal, however the name after it ends; a reference over a smaller number with 'дробь'
        ("Автобус № 41 Казань — Уфа, договор № 15/9.", "Автобус номер сорок один Казань — Уфа, договор номер пятнадцать дробь девять."),
        # an abbreviated preposition's case, an ordinal after a verb in the instrumental
        ("Ехать ок. 3 ч, она пришла 2-й.", "Ехать около трёх часов, она пришла второй."),
        ("Он оказался 5-м в списке.", "Он оказался пятым в списке."),
        # a weekday's and a month's period within the sentence, kept where it ends one
        ("Приём с чт. по пт., срок 6 мес. в договоре; закрыто в вс.", "Приём с четверга по пятницу, срок шесть месяцев в "
         "договоре; закрыто в воскресенье."),
        ("Смотрим «Терминатор III» и «Пётр I».", "Смотрим «Терминатор три» и «Пётр Первый»."),
        # a date after a weekday in a preposition's case takes that case: 'на чт, 3 марта' третье, 'в чт, 3 марта' третьего
        ("Перенесли на чт, 3 марта, а сдача в пт, 4 марта.", "Перенесли на четверг, третье марта, а сдача в пятницу, четвёртого марта."),
        ("Цена 900 ₽/ч. в будни, отпуск на 2 мес. Потом 3 раб. дня.", "Цена девятьсот рублей в час в будни, отпуск на два "
         "месяца. Потом три рабочих дня."),
        # 'нед.' a week, feminine, as 'мес.' a month
        ("Вакцину ставят в 12 нед., ревакцинацию через 2 нед.", "Вакцину ставят в двенадцать недель, ревакцинацию через две "
         "недели."),
        # a price per kilogram 'за килограмм', a dose per kilogram 'на килограмм'
        ("Черешня по 300 руб./кг, сыр 900 ₽/кг, доза 10 мг/кг.", "Черешня по триста рублей за килограмм, сыр девятьсот "
         "рублей за килограмм, доза десять миллиграммов на килограмм."),
        # 'м.' before a station's name is the metro; 'ауд.' an auditorium, in the preposition's case
        ("Встреча у м. «Арбатская», лекция в ауд. 214.", "Встреча у метро «Арбатская», лекция в аудитории двести четырнадцать."),
        # a match's sets in a list, one not rising or after a word of a match: its score, never ranges; a colon before
        # one digit no clock
        ("Она выиграла 6-3, 2-6, 6-4 и вышла в финал.",
         "Она выиграла шесть три, два шесть, шесть четыре и вышла в финал."),
        ("Матч закончился 2:1.", "Матч закончился два один."),
        # 'таб.' tablets and 'чел.' people after a count, in the number's form
        ("Выпейте 1 таб. утром, в упаковке 60 таб., в группе до 12 чел.; пришли 22 чел.",
         "Выпейте одну таблетку утром, в упаковке шестьдесят таблеток, в группе до двенадцати человек; пришли двадцать два "
         "человека."),
        # 'N/M эт.' a floor out of a house's floors, not a fraction
        ("Продаётся квартира 5/9 эт., 42 м², и студия 3/16 эт.",
         "Продаётся квартира пятый этаж из девяти, сорок два квадратных метра, и студия третий этаж из шестнадцати."),
        # a count joined to an abbreviated adjective reads the adjective in full ('3-комн.' трёхкомнатная)
        ("Сдаётся 3-комн. квартира, рядом 1-комн.", "Сдаётся трёхкомнатная квартира, рядом однокомнатная."),
        # a price per a measure 'за' it, also a measure after 'за' with no number; a range's first price names its rubles too
        ("Бензин по 58,9 ₽/л, свет от 4,15 до 5,20 руб. за кВт·ч, щебень 900 руб. за т.", "Бензин по "
         "пятьдесят восемь целых девять десятых рубля за литр, свет от четырёх рублей пятнадцати копеек до пяти рублей двадцати "
         "копеек за киловатт-час, щебень девятьсот рублей за тонну."),
        # two centuries or years before their plural noun: each an ordinal in that noun's case
        ("Иконы XV–XVI вв. и здания 1920–1930 гг. хранятся в музее; в XIX-XX веках и в 1941–1945 годах он пустовал.",
         "Иконы пятнадцатого — шестнадцатого веков и здания тысяча девятьсот двадцатого — тысяча девятьсот тридцатого годов "
         "хранятся в музее; в девятнадцатом — двадцатом веках и в тысяча девятьсот сорок первом — тысяча девятьсот сорок "
         "пятом годах он пустовал."),
        # a pair of years in brackets after a name: ordinal years in the nominative, the dash a pause
        ("Зал посвящён Екатерине II (1729–1796) и Ломоносову (1711-1765).",
         "Зал посвящён Екатерине Второй (тысяча семьсот двадцать девятый – тысяча семьсот девяносто шестой) и "
         "Ломоносову (тысяча семьсот одиннадцатый – тысяча семьсот шестьдесят пятый)."),
        # a date after an abbreviated weekday takes the weekday's case: 'в', 'до' the genitive, 'на' the nominative
        ("Приём в пн, 14.12, а сдача до ср, 16.12; заезд на сб, 19.12.",
         "Приём в понедельник, четырнадцатого декабря, а сдача до среды, шестнадцатого декабря; заезд на субботу, "
         "девятнадцатое декабря."),
        # and after a weekday written in full: 'на' the nominative, 'в' the genitive
        ("Встреча перенесена на среду, 4 марта, а приём — в пятницу, 6 марта.",
         "Встреча перенесена на среду, четвёртое марта, а приём — в пятницу, шестого марта."),
        # a count's range after a dash or a colon is 'от … до' where its noun is the genitive plural already
        ("Отпуск — 12–14 дней, срок: 5–6 недель, доставка — 2–3 дня.",
         "Отпуск — от двенадцати до четырнадцати дней, срок: от пяти до шести недель, доставка — два три дня."),
        # '#' before a number reads as '№' does: 'номер', after 'под' 'номером'; a Roman numeral after 'и' and one read
        ("Оплатите счёт #42 до пятницы, а потом заказ под #7.",
         "Оплатите счёт номер сорок два до пятницы, а потом заказ под номером семь."),
        ("Читайте главу IX и X к среде.", "Читайте главу девятую и десятую к среде."),
        # a gerund governs as its verb: an animate count in the accusative ('учитывая 3 водителей' трёх)
        ("Цена — 9 000 ₽, учитывая 3 водителей.", "Цена — девять тысяч рублей, учитывая трёх водителей."),
        # a count agrees with its noun past an adjective, also after a preposition
        ("На 1 свободное окно и в 1 соседнем здании.", "На одно свободное окно и в одном соседнем здании."),
        # a written ordinal after its noun and a dash takes the noun's gender
        ("Ваше кресло — 14-е у окна.", "Ваше кресло — четырнадцатое у окна."),
        # a quote closed right after a symbol read as a word keeps no space before it
        ("Пакет «Семья+» подключён.", "Пакет «Семья плюс» подключён."),
        # a date after a weekday in the nominative is in the nominative too
        ("Пятница, 18.09, уже занята.", "Пятница, восемнадцатое сентября, уже занята."),
        # a clock range joined by a dash is read as with 'с … до', also with a bare hour at one end; 'ч' after the
        # time is its hour's ('с 7:30 до 9 ч' до девяти часов)
        ("Приём с 7:30–9 ч, обед 13:00–13:45, суббота 10–14:30.",
         "Приём с семи тридцати до девяти часов, обед с тринадцати до тринадцати сорока пяти, суббота с десяти до "
         "четырнадцати тридцати."),
        # 'мск' in its case; a unit alone after an adjective is named in full
        ("Старт в 9:30 по мск, каждый новый кг — 40 ₽.",
         "Старт в девять тридцать по московскому времени, каждый новый килограмм — сорок рублей."),
        # a dotted number after a product's name is its version ('точка'); a duration after 'длится', 'займёт' and an
        # amount past 'примерно' after a transitive verb are in the accusative
        ("Обновите телефон до Android 15.1, если у вас iOS 16.7; урок длится 1 ч 41 мин.",
         "Обновите телефон до Android пятнадцать точка один, если у вас iOS шестнадцать точка семь; урок длится один "
         "час сорок одну минуту."),
        ("Мастер потратит прибл. 1 неделю, смена займёт 21 мин., а ремонт стоит примерно 1200 руб.",
         "Мастер потратит приблизительно одну неделю, смена займёт двадцать одну минуту, а ремонт стоит примерно "
         "тысячу двести рублей."),
    ],
}

SENTENCES = {
    "es": [
        "El código de acceso es 64 09 31 y el PIN, 27 58.",
        "El bus sale a las 9:50, el tren a las 10:40 y el ferri a las 7:35.",
        "Pida cita llamando al 955 41 62 07 o al 900 321 654.",  # the groups wait for the next
        "Tenía la tensión en 12/7 y la presión arterial en 150/95 el 3/5.",
        "El papa Sixto IV encargó la capilla; infle la rueda a 3,5 bar.",
        "Con el pulso en reposo a 58 ppm, el agua lleva 2 ppm de cloro.",
        "Sale a las 7:50 h y vuelve a las 18:40 h; el control abre a las 11:35 h.",
        "La piscina abre mar., jue. y sáb. por la mañana.",
        "Rodó a 4:50/km y después a 4'05\"/km.",
        "El km cuesta 1,30 € y el kWh, 0,20 €; 2 € por kg.",
        "El club pagó 75 M€ por el portero y 2,5 M€ al año; la grada costó 300 k€.",
        "El vuelo IB 3171 sale del andén 1 y la línea 21 cierra; el autobús 31 llega a la habitación 21.",
        "Reserva para 2 pers., ref. 12, vie., 14/3, de 10:00 a 13:00 h; incluye 1 noche; pedido nº 7C 2231 9900 o n.º 51-2207.",
        "Abre de L a V y de lun a jue, a las 16:30 h; menú 95 €/persona en «Rocky II» del Ayto.",
        "La catedral, acabada en 1572, es gótica.",
        "La temporada 2025—2026 y el curso 2026-27 del expediente n.º 2025/00917.",
        "Quedan 21 plazas de 240.",
        "Tarjeta terminada en 4821, expediente MT-7264, la III Feria; temperatura: 2–8 °C.",
        "Su pedido n.º 4521 cuesta 25,50 € y llegará el 3 de mayo de 2026 a las 9:30.",
        "Es la 2.ª entrega; pesa 3,5 kg y mide 1 1/2 m. Ahorra un 15 % (1.250 pesos).",
        "Llame al +34 912 345 678 o escriba a soporte@tienda.es, Sr. García. Siglo XIX, vier. 10 de mayo.",
        "A las 12.15 a.m. del 30/2/1990 cobró $0,10 y 1 000 000 de ¥, -8° c y 3 3/5 m.",
        "El paquete llega el 3 de mayo. Otro, el 4 de abr. de 2020, y el último el 5 de abr.",
        "Son 35,50 € y $1,01; le devolvemos 0,99 € y 5,02 £.",
        "Tarda 2–4 días, en un plazo de 3-5 días; abrimos 9–13 y 16–20.",
        "Introduzca el código 730 592; el PIN de su tarjeta es 0852, según el Código Penal de 1995.",
        "La batería tiene 4500 mAh; jarabe de 250 mg/5 ml; ferritina en 320 pg/ml y glucosa en 5,4 mmol/L.",
        'Las baldosas miden 30×60cm, la mesa 80 x 120 cm y el monitor 27". Sacó un 95/100 y un 8/10.',
        'El tubo mide 3/4", tome 1000 UI de vitamina D y 150 mcg de yodo; pulso de 72 lpm.',
        "Según el Real Decreto 1619/2012 y la Ley 39/2015, el Betis ganó 2 x 0; el expediente 47-0381 sigue abierto.",
        "La caja mide 60 x 40 x 35 cm y la maleta 55×40×20 cm.",
        "Atendemos lun–vie y de sáb. a dom. Gracias.",
        "Atendemos del lun. al vie. Los sábados, entre sáb. y dom.",
        "Si 2 x 3 = 6, entonces 1 x 3 = 3.",
        "Su localizador es 7719 2046 y llega en 3 días.",
        "El curso va del 3-7 de julio.",
        "Le visitamos el martes, 7/4, o el jueves, 9/4; el lunes, 3 personas.",
        "El taller es en el aula IV y la sala III; Carlos III la fundó.",
        "El tren AV 5120 sale del andén C4 a las 21:40, IVA incl.",
        "La dieta da 1800 kcal y el pulso baja a 64 bpm.",
        "Los trenes pasan cada 7-9 minutos y unos 3-4 días.",
        "Su reserva n.º 7731 y la factura número 2045; la reserva n.º 12.",
        "Según el cap. IV y la sección II, fue en el 79 d.C. o el 44 a. C.; su FC de 150 lpm y el FC Barcelona; "
        "89 USD.",
        "El concierto del 21/3, desde el 5/10 hasta el 28/2; tomó 1/2 vaso y los 2/3 de los votos.",
        "Perdió por 4-6, 6-3 y 2-6 en la segunda ronda.",
        "Cada envase trae 1 cáps. y 30 cáps.; el templo se levantó en el 480 a. C.",
        "Terminó la carrera en 3:05:41, dos minutos por detrás.",
        "Ventas al alza (+4,2 %), costes a la baja (-1,5 %).",
        "Ganó en 1h58'07\", por delante de quien llegó en 59'40\".",
        "Tras el 3-1 contra el Valencia, el equipo vuelve en el vuelo VY 1284 desde la puerta D8.",
        "La exposición recuerda a Isabel I (1451–1504) y a Goya (1746-1828).",
        "Estudiamos los siglos XV y XVI en clase.",
        "La cuota de 2021 subió y la tarifa 2031 baja.",
        "Horario de 7:30-9 h; los sábados, 10-13:30.",
    ],
    "pt": [
        "A tensão arterial era 13/9 e pintou 2 demãos em 2 regiões.",
        "Leiam os capítulos IX e X até segunda.",
        "Leia o item IV do edital; a caldeira trabalha a 6 bar.",
        "Manteve 4'15\"/km no início e 4'40\"/km no fim.",
        "Fez a prova a 5:08 min/km e o treino a 4:40/km.",
        "O km rodado custa R$ 3,20 e os km extras, R$ 4.",
        "O clube pagou 80 M€ pelo atacante; a reforma custou R$ 40 mi e o estádio, R$ 3 bi.",
        "A cobertura chega a R$ 100 mil, ou R$ 1,5 mil por mês, e o teto é de R$ 2 milhões.",
        "A sala 2 fica ao lado e a linha 1 fecha às 23h; o voo 21 sai da plataforma 2.",
        "O código de rastreio é LX 552 310 874 BR, para 2 pess., ref. 12.",
        "Restam 21 poltronas de 240, e as vendas de 2021.",
        "A época 2024—2025 e o processo n.º 2025/01234.",
        "Cartão com final 4821, protocolo KD-7352, a XII Feira, 2–8 °C.",
        "Seu pedido nº 4521 custa R$ 129,90 e chega em 15/03/2026, às 14h30.",
        "É a 2ª entrega do mês: 3,5 kg, 1 1/2 litro e 15% de desconto (1.250 reais).",
        "Ligue para +55 (11) 3333-4444 ou escreva para suporte@loja.com.br, Sr. Souza. Às 16:00 da tarde.",
        "Embarque às 19h45, das 7h às 10h30; CEP 80020-090, juros de 1,99% ao mês e 5–7 dias úteis, 9h–18h.",
        "Digite o código 730592; a senha: 0852, cartão final 2046, conforme o Código Civil de 2002.",
        "A bateria tem 4500 mAh; xarope de 250 mg/5 ml; ferritina em 320 pg/ml e glicemia em 5,4 mmol/L.",
        'O piso é de 30×60cm, a mesa tem 80 x 120 cm e a tela 27". Tirou 95/100 e 8/10; ele mede 1,78 m.',
        'O cano mede 3/4", tome 1000 UI de vitamina D e 150 mcg de iodo; pulso de 72 bpm.',
        "A Lei nº 13.709/2018 e o Decreto 7.962/13 valem; o Grêmio ganhou de 2 x 0 e o protocolo 12-0456 foi aberto.",
        "A mala mede 55 x 35 x 25 cm e a caixa 1,2 x 0,8 x 0,5 m.",
        "Atendemos seg.–sex. e de sáb. a dom.",
        "O código de rastreio é 5530 9184.",
        "Entrega na terça, 7/4, ou na quinta-feira, 9/4.",
        "A entrega será entre 9h15 e 11h, e a visita entre 14h30 e 16h.",
        "Meu CPF é 123.456.789-09 e o RG 12.345.678-9; CNPJ 12.345.678/0001-90, CEP 01310-100.",
        "A prova é na sala IV, perto do auditório II; D. João VI a fundou.",
        "Fica na Av. VII de Setembro, perto da R. I de Maio.",
        "Use no máx. 3 sachês e no mín. 1 por dia.",
        "A dieta dá 1800 kcal e o pulso cai a 64 bpm.",
        "Conforme o cap. IV e o título II, em 79 d.C. ou 44 a.C.; mantenha a FC entre 130 e 150 bpm; "
        "Feira às 3ªs e 5ªs, das 8h às 20h e entre 9h e 12h; o Gol 1.0 fez 2h11min08s e 3min02s/km.",
        "o FC Porto venceu.",
        "No dia 5/10 às 10h, até 28/2 e em 15/4; use 3/4 de xícara, cerca de 2/3 dos votos.",
        "Ganhou por 7-5, 4-6 e 6-1 na estreia.",
        "Caixa com 20 comp. e casa de 3 dorm.; o templo foi erguido em 480 a.C.",
        "Depois do 3 x 1 contra o Santos, o time embarca no voo G3 2075; a foto 3x4 custa R$ 15.",
        "As aulas começam às 7h50, 9h40 e 13h10.",
        "O check-in abre às 6h30 e o café é das 7h30 às 10h; o jantar, às 19h30.",
        "A anuidade para 2031 sobe e a taxa 2022 cai; reclamações pelo 0800 940 3321.",
        "Atendimento das 7:30-9h; aos sábados, 9-12:30.",
    ],
    "ru": [
        "Давление у него 145/95, пульс 80.",
        "Отпуск — 12–14 дней, срок: 5–6 недель, доставка — 2–3 дня.",
        "Он прошёл дистанцию за 3:21:41, в среднем по 4:45 мин/км и 4:20/км.",
        "Kia 2019 г. в., 123 л. с. и 240 з. е.; карта, оканчивающаяся на 4821.",
        "Вода 52,30 ₽/м³, свет 5,92 руб./кВт·ч, интернет 2 руб./ГБ.",
        "Карта заканчивается на 4821, обращение ТК-5720, с 2 детскими креслами; в I полугодии от +2 до +8 °C; 620014, г. Екатеринбург.",
        "Ваш заказ № 4521 стоит 2 499 руб. и придёт 15.03.2026 к 14:30.",
        "Это 3-я доставка за месяц: 3,5 кг и 12 л, скидка 15 % (1 250 руб.). В 1990-х было иначе.",
        "Звоните 8-913-983-56-01 или пишите на help@shop.ru, т.е. в любое время; XIX век, 2,5 тыс руб.",
        "Было 1 января. 3 мая и 3 апр. 2024 — тоже, а рост 12,5%.",
        "В 1974 пришло 1800 человек, с 1990 по 2005 — 2-х комнатные, к 5 мая в 16:30; $5, 1/2 л, 5 кв. м. и т. д.",
        "Отпуск с 3 по 5 мая, экзамены 20 и 21 января, съезд 14-16 октября; в 1987 г. и к 2030 г., к 18:30 и до 21:00.",
        "Запись на 6 или 7 апреля, к 9 и 10 июля; 12 июля и 14 июля закрыто.",
        "Добавьте 2-4 кг муки и 1-2 л воды; пробка 10–15 км, скидка 5-21%, 300-500 руб. за штуку.",
        "Пробка 10 – 15 км, уклон 2 - 4 %, потом 5 - 3 = 2 и 7 — 9 человек; 60 - 90 км/ч.",
        "Поезд № 752 Москва, смета № 47/26, ок. 16 ч, финишировал 3-м; на вт, 9 февраля, с пн. по сб., на 12 мес.",
        "Музей в усадьбе XVIII в., рядом с парком.",
        "Выпейте 1 таб. утром, в упаковке 60 таб., в группе до 12 чел.",
        "Продаётся квартира 5/9 эт., 42 м², и студия 3/16 эт.",
        "Сдаётся 3-комн. квартира, рядом 1-комн.",
        "Согласно гл. IV положения пульс держите в пределах 130–150 уд./мин, автобус каждые 10–12 мин.; Невский пр., 28.",
        "Она выиграла 6-3, 2-6, 6-4 и вышла в финал.",
        "Зал посвящён Екатерине II (1729–1796); приём в пн, 14.12, а сдача до ср, 16.12; заезд на сб, 19.12.",
        "Встреча перенесена на среду, 4 марта, к 18:45, а приём — в пятницу, 6 марта, 20:05.",
        "Оплатите счёт #42 до пятницы, а потом заказ под #7; читайте главу IX и X к среде.",
        "Цена — 9 000 ₽, учитывая 3 водителей; на 1 свободное окно; Ваше кресло — 14-е у окна.",
        "Пакет «Семья+» подключён; Пятница, 18.09, уже занята; старт в 9:30 по мск, каждый новый кг — 40 ₽.",
        "Приём с 7:30–9 ч, обед 13:00–13:45, суббота 10–14:30.",
        "Обновите телефон до Android 15.1, если у вас iOS 16.7; урок длится 1 ч 41 мин.",
        "Мастер потратит прибл. 1 неделю, смена займёт 21 мин., а ремонт стоит примерно 1200 руб.",
    ],
}


@pytest.mark.parametrize(("lang", "written", "spoken"), [(lang, w, s) for lang, cases in READINGS.items()
                                                          for w, s in cases])
def test_reading(lang: str, written: str, spoken: str) -> None:
    assert normalize(written, language=lang) == spoken


def _stream(text: str, lang: str, rng: random.Random):
    normalizer = StreamingNormalizer(lang)
    commits = []
    for piece in random_pieces(text, rng, 1, 7):
        commits += normalizer.push(piece)
    return commits + normalizer.flush()


@pytest.mark.parametrize(("lang", "text"), [(lang, t) for lang, texts in SENTENCES.items() for t in texts])
def test_stream_equals_one_shot_with_exact_offsets(lang: str, text: str) -> None:
    one_shot = normalize(text, language=lang)
    for seed in range(40):
        commits = _stream(text, lang, random.Random(seed))
        assert "".join(c.spoken for c in commits) == one_shot
        raw_end = spoken_end = 0
        for c in commits:
            assert (c.raw_start, c.spoken_start) == (raw_end, spoken_end)
            assert text[c.raw_start:c.raw_end] == c.raw
            raw_end, spoken_end = c.raw_end, c.spoken_end
        assert raw_end == len(text)


WAITS = {
    "es": ("Pesa 3", " kg.", "Pesa tres kilogramos."),
    "pt": ("Custa R$ 3", ",50.", "Custa três reais e cinquenta centavos."),
    "ru": ("Вес 3", " кг.", "Вес три килограмма."),
}


@pytest.mark.parametrize("lang", sorted(WAITS))
def test_a_number_waits_for_its_unit(lang: str) -> None:
    head, tail, spoken = WAITS[lang]
    normalizer = StreamingNormalizer(lang)
    early = normalizer.push(head)
    assert normalizer.pending.endswith(head[-1])  # the number may still get a unit
    late = normalizer.push(tail) + normalizer.flush()
    assert "".join(c.spoken for c in early + late) == spoken


@pytest.mark.parametrize("lang", sorted(WAITS))
def test_a_digit_run_longer_than_the_tail_is_cut_and_still_read(lang: str) -> None:
    normalizer = StreamingNormalizer(lang)
    commits = []
    for piece in random_pieces("Código " + "7" * 400 + " listo", random.Random(1), 3, 9):
        commits += normalizer.push(piece)
        assert len(normalizer.pending) <= StallPolicy().max_tail_en
    commits += normalizer.flush()
    spoken = "".join(c.spoken for c in commits)
    assert not any(ch.isdigit() for ch in spoken)
    assert spoken.endswith("listo")


RU_FRAGMENTS = [
    "1974", "1800", "2-х", "80-х", "5", "12", "1/2", "2 3/4", "16:30", " ", " ", ".", ",", "\n", "в ", "с ", "к ",
    " по ", " человек", " года", " мая", " января", " апр.", " кг", " кв. м", " м³", " Гц", "$", "USD ", " до н. э.", "и т. д.",
    "a@gmail.com", " —", "3-5", " и ", " г.", "14:00", "к 18:30", "до ", "10–15", " км/ч", " руб.", "%",
    " - ", " – ",
]


@pytest.mark.parametrize("seed", range(3))
def test_russian_fragments_stream_equals_one_shot(seed: int) -> None:
    for text in fragment_texts(RU_FRAGMENTS, 60, seed):
        assert_stream_equals_one_shot(text, "ru", range(4))


def test_a_russian_day_waits_for_the_month_after_the_next_day() -> None:
    normalizer = StreamingNormalizer("ru")
    early = normalizer.push("Отпуск с 3 по 5")
    assert "3" in normalizer.pending  # '3' is a date only if a day and a month follow
    late = normalizer.push(" мая.") + normalizer.flush()
    assert "".join(c.spoken for c in early + late) == "Отпуск с третьего по пятое мая."


def test_the_second_day_takes_the_first_days_case_after_the_preposition_is_committed() -> None:
    normalizer = StreamingNormalizer("ru")
    early = normalizer.push("Вылет на 6 или ")
    assert "".join(c.raw for c in early).endswith("на ")  # the preposition is out, '6' waits
    late = normalizer.push("7 апреля.") + normalizer.flush()
    assert "".join(c.spoken for c in early + late) == "Вылет на шестое или седьмое апреля."


def test_a_barge_in_forgets_the_first_days_case() -> None:
    normalizer = StreamingNormalizer("ru")
    normalizer.push("Готово к 9 и 10 июля ")  # '9' is committed with the dative, '10 июля' held
    normalizer.reset()
    spoken = "".join(c.spoken for c in normalizer.push("10 июля.") + normalizer.flush())
    assert spoken == " десятого июля."
