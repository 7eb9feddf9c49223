"""English normalization classes, one table row per reading, each also streamed on every split.

The readings follow the English development data (`shared/tn/`) unless the house style differs
on purpose (docs/protocol.md, "Text normalization")."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from text_pieces import random_pieces

from voice_tts.tn import StreamingNormalizer, normalize

READINGS = {
    # a bus's, a train's, a room's number in pairs
    "Bus 1472 to Newark leaves at 9; your room is Room 516.":
        "Bus fourteen seventy two to Newark leaves at nine; your room is Room five sixteen.",
    # a running pace after its slash: minutes and seconds per kilometer, in the singular before a noun
    "Her average was 5:02/km, then a 4:45 min/km pace on the hills.":
        "Her average was five minutes two seconds per kilometer, then a four minute forty five second per kilometer"
        " pace on the hills.",
    "He ran the mile in 4:07 and the 10K in 31:45.": "He ran the mile in four minutes seven seconds and the ten K in thirty one minutes forty five seconds.",
    "Your refund should post by Wed.": "Your refund should post by Wednesday.",
    "We're showing Rocky III and The Godfather II, then a talk on Henry VIII.": "We're showing Rocky three and The Godfather two, then a talk on Henry the eighth.",
    "Keep the reading < 120 and the pressure > 90.": "Keep the reading less than one hundred twenty and the pressure greater than ninety.",
    # a slash pair after a blood pressure word: 'over', the first number in pairs as doctors say it
    "At the clinic her BP was 142/91; at home her blood pressure is 105/70.":
        "At the clinic her B P was one forty two over ninety one; at home her blood pressure is one oh five over"
        " seventy.",
    # dates: day first reads "the ... of", month first reads month first, as written
    "Archived on 25 April 2011 .": "Archived on the twenty fifth of april twenty eleven",
    "Retrieved 30 September 2015": "Retrieved the thirtieth of september twenty fifteen",
    "( 01 August 2000 )": "( the first of august two thousand )",
    "On the 21st of October 2006 , she": "On the twenty first of october two thousand six , she",
    "Alonso ( June 12 , 2010 ) .": "Alonso ( june twelfth , twenty ten ) .",
    "Retrieved Jun 5 , 2013 .": "Retrieved june fifth , twenty thirteen .",
    "It opened Nov. 5, 2010 downtown.": "It opened november fifth, twenty ten downtown.",
    "In April 2008 , he": "In april two thousand eight , he",
    "from 27 July through 2 August 1987 .": "from the twenty seventh of july through the second of august nineteen eighty seven .",
    "27 Dec 2015": "the twenty seventh of december twenty fifteen",
    "May I help you? In May we rest.": "May I help you? In May we rest.",
    "I left in Nov. Then I came back.": "I left in November. Then I came back.",
    "It shipped on 25 jul 2012 and again on 25th july 2013.":
        "It shipped on the twenty fifth of july twenty twelve and again on the twenty fifth of july twenty thirteen.",
    "Due 25 sept. at noon": "Due the twenty fifth of september at noon",
    "Dated 01/07/98, 25/12/2020 and 15.01.2020.":
        "Dated january seventh ninety eight, the twenty fifth of december twenty twenty and the fifteenth of january twenty twenty.",
    "Revenue grew in 2Q22.": "Revenue grew in the second quarter of twenty two.",
    # a fraction after a verb of change and 'by' is a share, not a month and day ('due by 1/15')
    "Fees fell by 1/3 and rent is cut by 1/4, but pay by 1/2 or by 3/14/2025.":
        "Fees fell by one third and rent is cut by one quarter, but pay by January second or by march fourteenth twenty twenty five.",
    # a reference or claim number reads digit by digit, a letter prefix spelled
    "Note claim ID ABX 31742 and ref. 88310; you may claim 1200 points.":
        "Note claim I D A B X three one seven four two and reference eight eight three one zero; you may claim twelve hundred points.",
    # a range of days after a month reads ordinals, as one day does
    "We're away Aug. 3–9 and Sept 28-30.": "We're away August third to ninth and September twenty eighth to thirtieth.",
    # a street's quadrant after its type's period; DC before a ZIP code is spelled
    "Write to 725 17th St. NW, Washington, DC 20503 or 9 Oak Ave SE, Salem, OR 97301.":
        "Write to seven twenty five seventeenth Street Northwest, Washington, D C two zero five zero three or nine Oak Avenue Southeast, "
        "Salem, Oregon nine seven three zero one.",
    # a Roman numeral after a room's or a stage's noun is its number
    "Yoga is in Studio III by Gate II, then Suite IV.": "Yoga is in Studio three by Gate two, then Suite four.",
    # a numbered place's number with a letter after it is read as without it, then the letter
    "The lab moved from Room 318A to Suite 1204C.": "The lab moved from Room three eighteen A to Suite twelve oh four C.",
    # decades
    "Music of the 1960s-1980s, mostly mid-80s.": "Music of the nineteen sixties to nineteen eighties, mostly mid eighties.",
    # money with a rate, without its zero, with a scale letter, ranges
    "It costs $350/yr or $0.5/hr.": "It costs three hundred fifty dollars per year or fifty cents per hour.",
    "Stamps are $.01 each, not $2.000.": "Stamps are one cent each, not two dollars.",
    "They raised ¥30 b last year.": "They raised thirty billion yen last year.",
    "Rooms cost $150.25-$250.67 a night.":
        "Rooms cost one hundred fifty dollars and twenty five cents to two hundred fifty dollars and sixty seven cents a night.",
    "Plans run $1,500-2,000 a month, add-ons $15–20 each.":
        "Plans run one thousand five hundred to two thousand dollars a month, add-ons fifteen to twenty dollars each.",
    # addresses with a path, words joined by a slash, a lone at sign
    "Mail sdf@gmail.com/123-sm or see ourdailynews.com/12-sm.":
        "Mail sdf at gmail dot com slash one two three dash sm or see ourdailynews dot com slash one two dash sm.",
    "Go to www.nvidia.com now.": "Go to w w w dot nvidia dot com now.",
    "Write to a-1.b3_c&-d@gma4i-l.com today.":
        "Write to a dash one dot b three underscore c ampersand dash d at gma four i dash l dot com today.",
    "Please upgrade/update it, n/a otherwise; meet @ 5pm.":
        "Please upgrade slash update it, n a otherwise; meet at five PM.",
    # signs, rates, dimensions, equations, sections, large grouped numbers
    "It fell to -2 today.": "It fell to minus two today.",
    "Apples are 12/kg.": "Apples are twelve per kilogram.",
    "The box was 25 x 7 m.": "The box was twenty five by seven meters.",
    "Is 1-2=5 true?": "Is one minus two equals five true?",
    "See § 4 of PART XL.": "See section four of PART forty.",
    "Open 2pm-5pm, call 555.555.5555.": "Open two PM to five PM, call five five five, five five five, five five five five.",
    "About 124,444,234,854,823,834,553 grains.":
        "About one hundred twenty four quintillion four hundred forty four quadrillion two hundred thirty four trillion "
        "eight hundred fifty four billion eight hundred twenty three million eight hundred thirty four thousand five "
        "hundred fifty three grains.",
    "We're open 9:00 am - 5:30 pm, or 9 a.m. - 1 p.m. on Saturday.":
        "We're open nine AM to five thirty PM, or nine AM to one PM on Saturday.",
    "Ping 192.168.0.40 from the card ending in 8876.":
        "Ping one nine two dot one six eight dot zero dot four zero from the card ending in eight eight seven six.",
    "The fiscal year ending in 2024 cost $.506 a share.":
        "The fiscal year ending in twenty twenty four cost point five zero six dollars a share.",
    "Turn it 90º, then pay $ and % as marked.": "Turn it ninety degrees, then pay dollar and percent as marked.",
    # acronyms: spelled unless a word, said as a word, two-letter word or Roman numeral
    "NASA and the FBI met about AI, PDFs and the US.": "NASA and the F B I met about A I, P D F's and the U S.",
    "IT WAS A FOCUS OF THE EXCEL TEAM": "IT WAS A FOCUS OF THE EXCEL TEAM",
    "World War II and Henry VIII, James D. Smith": "World War two and Henry the eighth, James D. Smith",
    # percent, ranges, money and numbers with a space before the symbol
    "It had 90 % of it and 28.3 % more.": "It had ninety percent of it and twenty eight point three percent more.",
    "He served 1960 - 1962 and won 4 - 6 , 6 - 0 .": "He served nineteen sixty to nineteen sixty two and won four to six , six to zero .",
    "but 5 - 3 = 2": "but five three equals two",
    # a number without its area code (NXX-XXXX) is read as a phone number; ranges stay ranges
    "Call 555-0123 or 555-1234 now.": "Call five five five, zero one two three or five five five, one two three four now.",
    "Read pages 3-5 from 1960-1962 and 2024-2025, it ended 3-2, with 800-1200 calories.": (
        "Read pages three to five from nineteen sixty to nineteen sixty two and twenty twenty four to twenty twenty five, "
        "it ended three to two, with eight hundred to twelve hundred calories."
    ),
    "worth $ 250 , or $ 30 billion": "worth two hundred fifty dollars , or thirty billion dollars",
    "in issue # 19 .": "in issue number nineteen .",
    # a '#' or an abbreviated 'no.' before a code with digits reads 'number'; 'no.' as a word stays one
    "Ship it from order #A7-30915; confirmation no. HX-4471, ticket no. 5, case No. A-12. I said no.":
        "Ship it from order number A seven three zero nine one five; confirmation number H X four four seven one, "
        "ticket number five, case number A twelve. I said no.",
    # decimals, also without the zero before the point
    "He hit .878 in 2019 and 3.25 later (.5 of it).": "He hit point eight seven eight in twenty nineteen and three point two five later (point five of it).",
    # years vs cardinals
    "In 1991 and 2008 , 2119 homes and 4070 people": (
        "In nineteen ninety one and two thousand eight , two thousand one hundred nineteen homes and four thousand seventy people"
    ),
    # units after a number
    "50 nm, 5 km, 3 kg, 120 m², 16.7 km2, 2 µm and 5 ft²": (
        "fifty nanometers, five kilometers, three kilograms, one hundred twenty square meters, "
        "sixteen point seven square kilometers, two micrometers and five square feet"
    ),
    "It was 38°C, then 38 °C, then -5 °C and 98.6 °F.": (
        "It was thirty eight degrees Celsius, then thirty eight degrees Celsius, then minus five degrees Celsius "
        "and ninety eight point six degrees Fahrenheit."
    ),
    # street addresses: the house number in pairs, directions, types and states in full
    "Ship to 4521 W 3rd Ave, Los Angeles, CA 90005 or 19 Oak Blvd.":
        "Ship to forty five twenty one West third Avenue, Los Angeles, California nine zero zero zero five or "
        "nineteen Oak Boulevard.",
    "Our store at 905 Lake Rd, Dover, DE is open; 311 S Main st. has moved.":
        "Our store at nine zero five Lake Road, Dover, Delaware is open; three eleven South Main Street has moved.",
    "Meet at 12 Park Pl. Then at 2005 Grand Pkwy, Austin, then home.":
        "Meet at twelve Park Place. Then at two thousand five Grand Parkway, Austin, then home.",
    "I bought 3 Apples and 2 Pears at 5 Main St. and 100 Oak Ave.":
        "I bought three Apples and two Pears at five Main Street and one hundred Oak Avenue.",
    # years before an era, decades split by a tokenizer, model numbers
    "Rome fell in 476 A.D. and Caesar died in 44 BC; in the 1970 s the A320neo and B737 flew.":
        "Rome fell in four seventy six A D and Caesar died in forty four B C; in the nineteen seventies the "
        "A three twenty neo and B seven thirty seven flew.",
    # an abbreviated weekday before a date or time
    "Book it for Tu (10:30), Thurs. 9am or Sat 5 pm; Sun is fine.":
        "Book it for Tuesday (ten thirty), Thursday nine AM or Saturday five PM; Sun is fine.",
    # ordinals: a suffix that does not fit the number is read as written
    "the 1st, 22nd, 1,000th and 9,000,000th, not the 21th or 4rd": (
        "the first, twenty second, one thousandth and nine millionth, not the twenty one th or four rd"
    ),
    # times with seconds, each unit agreeing with its number; units of data rates and weights
    "Laps of 21:51:31 and 1:01:01, sent at 18:00:00Z over 3 mbps with 12KG.":
        "Laps of twenty one hours fifty one minutes and thirty one seconds and one hour one minute and one second, "
        "sent at eighteen hours zero minutes and zero seconds Z over three megabits per second with twelve kilograms.",
    # money: zeros after the cents unsaid, one decimal as tens of cents, a country's dollar
    "It was $20.500, then $20.5, then US$76.3 trillion and HK$500.": (
        "It was twenty dollars and fifty cents, then twenty dollars and fifty cents, then seventy six point three "
        "trillion US dollars and five hundred Hong Kong dollars."
    ),
    # a month and day joined by dashes; a fraction with an ordinal suffix
    "Due Jan-15-2020, then Feb-3. Use 1/4th or 2/4th.": (
        "Due january fifteenth twenty twenty, then february third. Use one quarter or two quarters."
    ),
    "Pay by Jan-15": "Pay by January fifteenth",
    # a time written with a dot before am/pm (a decimal stays one); a star between digits
    "Lunch at 1.59 p.m., 2.5 hours, and 2*8 = 16.": "Lunch at one fifty nine PM, two point five hours, and two times eight equals sixteen.",
    # abbreviations written without their period, also in lower case
    "See vol 59 by mr Davis Jr of Acme ltd, Warner Bros and so on etc": (
        "See volume fifty nine by mister Davis Junior of Acme limited, Warner Brothers and so on etcetera"
    ),
    # regnal numbers after the names of monarchs and popes
    "Pope Innocent III crowned Otto IV; Catherine II and Francis I.":
        "Pope Innocent the third crowned Otto the fourth; Catherine the second and Francis the first.",
    # a self-closing tag parts the words around it; a formatting tag does not
    "Say go<noise/>home, <b>un</b>believable.": "Say go home, unbelievable.",
    # a hash between words is said; a hashtag's is not
    "Tag x#y and #news": "Tag x hash y and news",
    # a note or language name with its sharp; a number sign after a word is a word of its own
    "I code in C# 4 and F# daily.": "I code in C sharp four and F sharp daily.",
    "A sonata in C# minor.": "A sonata in C sharp minor.",
    "Plan B#4 works.": "Plan B number four works.",
    "# Title": "Title.",  # a heading's mark, not a sharp: nothing before it
    # a range of a clock time and a bare hour reads both ends as times ('9–5:30', '7:30–9')
    "Drop-off is 7:30–9 a.m., pickup 3–5:30 p.m.; we're open 10:30-2 on Sundays.":
        "Drop-off is seven thirty to nine AM, pickup three to five thirty PM; we're open ten thirty to two on Sundays.",
    # the period of 'a.m.' that also ends the sentence is kept (a pause, and the sentence's end)
    "We open at 10 a.m.": "We open at ten AM.",
    "We open at 10 a.m. Tomorrow too.": "We open at ten AM. Tomorrow too.",
    "We open at 10 a.m. and close at 6 p.m.": "We open at ten AM and close at six PM.",
    # a range of clock times with an unspaced dash: the dash said "to", the period the abbreviation's
    "Open Monday–Friday, 8 a.m.–6 p.m. Eastern.": "Open Monday to Friday, eight AM to six PM Eastern.",
    # a time zone after a range of times is named too
    "Open 8 a.m.–9 p.m. ET or 9 a.m. - 5 p.m. PT.": "Open eight AM to nine PM Eastern Time or nine AM to five PM Pacific Time.",
    # a day after a time goes on with the sentence
    "Call 9 a.m.–5 p.m. Mon.–Fri. or 10 a.m. Saturday.":
        "Call nine AM to five PM Monday to Friday or ten AM Saturday.",
    # the range that ends the sentence keeps the sentence's period
    "Call us Monday–Friday, 8 a.m.–5 p.m.": "Call us Monday to Friday, eight AM to five PM.",
    # an abbreviated weekday's period before a comma, semicolon or bracket is the abbreviation's alone
    "Open Mon.–Fri., 9 a.m.–6 p.m.; Sat., 10 a.m.–2 p.m. (Tue.–Thu. late)":
        "Open Monday to Friday, nine AM to six PM; Saturday, ten AM to two PM (Tuesday to Thursday late)",
    # a month and day after a weekday named in full and its comma
    # a measure between a dimension's "by" and its noun describes the noun: singular
    "It ships in a 24 x 18 x 6 in. box or 9 x 4 ft crates.": "It ships in a twenty four by eighteen by six inch box or nine by four foot crates.",
    "The crate is 120 × 80 × 60 cm; 2 × 3 = 6.": "The crate is one hundred twenty by eighty by sixty centimeters; two times three equals six.",
    "Your appointment is Thursday, 5/22, or Monday, 6/2 at 9.": "Your appointment is Thursday, may twenty second, or Monday, june second at nine.",
    "Call by 5 p.m. Eastern or 4 p.m. PT today.": "Call by five PM Eastern or four PM Pacific Time today.",  # a time zone goes on
    # a US time zone after a time by its name; a five-digit number after an example's words is a ZIP code
    "Mail it to us (e.g., 60614) by 5 p.m. CT.": "Mail it to us (for example, six zero six one four) by five PM Central Time.",
    # a range of decimals, with its unit or without: 'to' between them, 'point zero' (never 'point oh')
    "A normal value is 4.5–6.0, and the 2.5-4.0 mg dose is rare.":
        "A normal value is four point five to six point zero, and the two point five to four point zero milligrams dose is rare.",
    # an amount before a singular noun describes it (not before an adverb: 'the $20 today')
    "Members save 10% on the $45 repair fee, and we keep the $20 today.":
        "Members save ten percent on the forty five dollar repair fee, and we keep the twenty dollars today.",
    # ... past an adjective too ('the $49 annual fee'); not before a pronoun ('the $49 you paid')
    "The $49 annual fee, a $10 monthly charge and your $5 late fee replace the $49 you paid.":
        "The forty nine dollar annual fee, a ten dollar monthly charge and your five dollar late fee replace the forty nine "
        "dollars you paid.",
    # ... after a possessive or an article before a noun ending the phrase; '$500 in repairs' stays an amount
    "Once my $250 deductible is met, the $40 minimum, our $1,000 total.":
        "Once my two hundred fifty dollar deductible is met, the forty dollar minimum, our one thousand dollar total.",
    "Their $300 in fees and the $75 due today.": "Their three hundred dollars in fees and the seventy five dollars due today.",
    # capitals joined by '&' spelled with 'and'
    "Shares of AT&T fell while the S&P 400 rose; see the Q&A from R&D.":
        "Shares of A T and T fell while the S and P four hundred rose; see the Q and A from R and D.",
    # a plate's digits, capitals and digits sign by sign; '5G', '4K', '2XL' stay as said
    "Plate 6TRJ244 and 4WDA1093 on a 5G phone with a 4K screen, size 2XL.":
        "Plate six T R J two four four and four W D A one zero nine three on a five G phone with a four K screen, size two XL.",
    # the 1 dialled before an area code is said with it; a toll-free 800 as a number
    "Call 1-800-555-0146 or 1-415-555-0100.":
        "Call one eight hundred, five five five, zero one four six or one four one five, five five five, zero one zero zero.",
    # a unit joined to its number by a hyphen describes the noun after it: singular
    "a 5-km run with a 10-lb bag": "a five kilometer run with a ten pound bag",
    # a unit symbol with no number after 'per', 'each' or 'every', also past an adjective: its name for one
    "Roaming is 8p per MB, each additional kg is $15 and every extra km 40¢.":
        "Roaming is eight p per megabyte, each additional kilogram is fifteen dollars and every extra kilometer "
        "forty cents.",
    # address and area abbreviations
    "Apt. 4B, Ste. 200 and Bldg. 5 have 650 sq. ft. each.":
        "Apartment four B, Suite two hundred and Building five have six hundred fifty square feet each.",
    # a reference number spelled then said digit by digit; a Roman numeral after Title
    "Your claim number is HX-40917; Title IX questions go to Mr. Ortiz.":
        "Your claim number is H X four zero nine one seven; Title nine questions go to Mister Ortiz.",
    # capitals before digits, or groups of capitals and digits: a code spelled sign by sign, a year inside it too
    "Your hold request H4829 and claim CL-48-2207-A, file RC-2026/0457.":
        "Your hold request H four eight two nine and claim C L four eight two two zero seven A, "
        "file R C two zero two six slash zero four five seven.",
    # a parcel's code ends in its country's capitals: sign by sign too
    "Your parcel RR987654321DE left Frankfurt today.":
        "Your parcel R R nine eight seven six five four three two one D E left Frankfurt today.",
    # a direction's period after a house number; a currency after its amount; a unit's period inside a sentence
    "Mail 400 W. 59th St., pay 25¢ or 30 € and add 8 oz. of water, 3x a day; 2x.":
        "Mail four hundred West fifty ninth Street, pay twenty five cents or thirty euros and add eight ounces of "
        "water, three times a day; two x.",
    # cubic feet; a booking code letter by letter; a Roman numeral after Building, a letter not
    "About 1,350 cu. ft., code X7KP4M, in Building II, Block C.":
        "About one thousand three hundred fifty cubic feet, code X seven K P four M, in Building two, Block C.",
    # a code a code word names a few words before it, by its digits, its groups too; a year after 'of' stays one
    "Enter code 730 592; your PIN: 0852, the last digits are 2046, under the code of 1995.":
        "Enter code seven three zero five nine two; your PIN: zero eight five two, the last digits are two zero four six, "
        "under the code of nineteen ninety five.",
    # a year after a word that makes it one stays a year ('in 2026', 'until early 2027'), a code's digits do not
    "The code expires in 2026; code 2024 works until early 2027, and your PIN is 1987.":
        "The code expires in twenty twenty six; code two zero two four works until early twenty twenty seven, and your PIN is "
        "one nine eight seven.",
    # units CLDR names ('dL', 'mmol/L'), one per another, a dose per an amount; an amount or a measure describing a noun
    "Ferritin 18 ng/mL, glucose 5.4 mmol/L, hemoglobin 13.2 g/dL; syrup 250 mg/5 mL, a 5 mg dose.":
        "Ferritin eighteen nanograms per milliliter, glucose five point four millimoles per liter, hemoglobin thirteen point "
        "two grams per deciliter; syrup two hundred fifty milligrams per five milliliters, a five milligram dose.",
    "It's a $40 copay, an $80 fee, and the 4TB HDD; she paid $40 for it.":
        "It's a forty dollar copay, an eighty dollar fee, and the four terabyte H D D; she paid forty dollars for it.",
    # after 'a' a noun makes the amount describe it, after 'the' only an acronym: 'the $250 will' stays plural; a time is no picometer
    "Book a 2 PM slot for a $1,200 TV; the $250 will be refunded.":
        "Book a two PM slot for a one thousand two hundred dollar T V; the two hundred fifty dollars will be refunded.",
    # a fraction joined to a unit's name, dimensions by, a mark out of its scale's top
    "Cut a 5/8-inch hole in the 4x8 sheet; tiles are 30×60cm or 20 × 20 cm; she scored 92/100 and 17/20.":
        "Cut a five eighths inch hole in the four by eight sheet; tiles are thirty by sixty centimeters or twenty by twenty "
        "centimeters; she scored ninety two out of one hundred and seventeen out of twenty.",
    "Write 2 × 3 = 6 on a card of 20 × 30 cm.": "Write two times three equals six on a card of twenty by thirty centimeters.",
    # every × of a dimension chain is 'by'; a lone 's' after a number is seconds; an amount in a currency's code describing a noun
    "The crate is 60 × 40 × 25 cm, the lid shuts in 5 s, and the NZ$75 deposit comes back.": "The crate is sixty by forty by "
        "twenty five centimeters, the lid shuts in five seconds, and the seventy five New Zealand dollar deposit comes back.",
    # a weekday's period before a dash
    "Rota: Tue. – Anna, Thu. – Ben; the fair runs all week.": "Rota: Tuesday – Anna, Thursday – Ben; the fair runs all week.",
    # a state's code before its ZIP code by its name, a short code and a code after '#' digit by digit, a flight's number in pairs
    "Ship it to 200 Pine Rd., Unit 4, Austin, TX 78701, or text STOP to 55123.": "Ship it to two hundred Pine Road, Unit four, "
        "Austin, Texas seven eight seven zero one, or text STOP to five five one two three.",
    "Flight DL 1482 and flight AA 90 board at Gate C4; ticket #BK-20931 is confirmed.": "Flight D L fourteen eighty two and flight "
        "A A ninety board at Gate C four; ticket number B K two zero nine three one is confirmed.",
    # an airline's code without a flight word, its number in pairs; a number after '#' in pairs too, as a house's
    "You are now on DL 2174, then flight B6 815 from Gate A9; runner #2318 starts first.":
        "You are now on D L twenty one seventy four, then flight B six eight fifteen from Gate A nine; runner number "
        "twenty three eighteen starts first.",
    "Roll your 403(b) into a 401(k) and add 2 tbsp of oil and 1 tsp of salt; the charger is 65 Wh.": "Roll your four oh three b into "
        "a four oh one k and add two tablespoons of oil and one teaspoon of salt; the charger is sixty five watt hours.",
    "The plan allows 1800 kcal and a pulse of 64 bpm.": "The plan allows one thousand eight hundred kilocalories and a pulse of sixty "
        "four beats per minute.",
    "The museum's 18th-century wing is on the 3rd-floor, a 21st-century idea.": "The museum's eighteenth century wing is on the "
        "third floor, a twenty first century idea.",
    "On the easy 5 km runs we talk; the first 5 km are flat.": "On the easy five kilometer runs we talk; the first five kilometers are flat.",
    "Keep it at 130–150 bpm for 2-3 km.": "Keep it at one hundred thirty to one hundred fifty beats per minute for two to three kilometers.",
    # a fraction of one before a measure noun is 'a' one ('an eighth'), a half 'half a', others 'of a'
    "Stir in ⅓ cup of oil, ½ cup of milk, ¾ cup of flour, ¼ tsp of salt and ⅛ tsp. of soda for ½ hour.": "Stir in a third cup of "
        "oil, half a cup of milk, three quarters of a cup of flour, a quarter teaspoon of salt and an eighth teaspoon of soda for half an hour.",
    # a ruler's possessive; a number's plural; a month and day no fraction can be; a ZIP code before its word
    "Louis XIV's court met the over-65s on the 7/19 tour in the 60614 ZIP code.": "Louis the fourteenth's court met the over sixty "
        "fives on the July nineteenth tour in the six zero six one four ZIP code.",
    # a number's plural stands alone: after a letter it is part of a code ('W26s')
    "The W26s fit the under-16s.": "The W twenty six s fit the under sixteens.",
    # a house number with its letter before a street type; a British number with its trunk 0 (its zeros oh) and pounds
    # with 'and'; pence after pounds a bare number, abbreviations of amounts ('max.', 'inc.') in full
    "Flat 9C is at 27A Mill Rd; ring 0131 496 0022 about £2,340 in rent.": "Flat nine C is at twenty seven A Mill Road; ring oh "
        "one three one four nine six oh oh two two about two thousand three hundred and forty pounds in rent.",
    "Parking is £4.80 a day, max. 3 days, or £12.05 inc. VAT for the week; call 020 7946 0102.": "Parking is four pounds "
        "eighty a day, maximum three days, or twelve pounds five including VAT for the week; call oh two oh seven nine four "
        "six oh one oh two.",
    "Your refund of £0.75 and $3.40 is on its way.": "Your refund of seventy five pence and three dollars and forty cents is "
        "on its way.",
    "The 33 kV cable is due 4/30/2027.": "The thirty three kilovolt cable is due April thirtieth, twenty twenty seven.",
    # a clock range with am/pm at its end or on both sides; a course's number in pairs; a postcode's district spelled
    "The lab is open 1–4:30 p.m. and the gym 7:15 am–10 pm; bring PHYS 102 notes to SE1.": "The lab is open one to four "
        "thirty PM and the gym seven fifteen AM to ten PM; bring P H Y S one oh two notes to S E one.",
    "The fan runs at 32 dB, and your bag tag reads LHRBA55102.": "The fan runs at thirty two decibels, and your bag tag "
        "reads L H R B A five five one zero two.",
    # a postal tracking number in groups is one code, read sign by sign
    "Item LY 3308 5521 7DE has left the depot.": "Item L Y three three zero eight five five two one seven D E has left "
        "the depot.",
    # a match's sets in a list, one not rising or after a word of a match: its score, no 'to'; rising: ranges
    "She won 7–5, 2–6, 6–3 in the final; the shop is open 9–12 and 14–17.":
        "She won seven five, two six, six three in the final; the shop is open nine to twelve and fourteen to "
        "seventeen.",
    "They lost 4–6, 3–6 to the Bryans.": "They lost four six, three six to the Bryans.",
    # 'incl.' including, 'apt.' apartment, 'pts' after a count points
    "The rate is $95 a night incl. breakfast; the apt. sleeps 4, and the Jets lead with 21 pts.": "The rate is ninety "
        "five dollars a night including breakfast; the apartment sleeps four, and the Jets lead with twenty one points.",
    # an apostrophe for a year's century is not read
    "The class of '97 met in '19 to hear '80s hits.": "The class of ninety seven met in nineteen to hear eighties hits.",
    # two years in a row joined by a slash are a fiscal year or season, read as two years
    "The 2024/25 accounts and the 1999/2000 season.":
        "The twenty twenty four twenty five accounts and the nineteen ninety nine two thousand season.",
    # an amount hyphened to what it describes keeps its currency; 'pp' after an amount is per person
    "Book the €15-a-head tour or the $3-million villa at £120pp.":
        "Book the fifteen euro a head tour or the three million dollar villa at one hundred and twenty pounds per person.",
    # a scale's letter after an amount a currency code opened, as after a sign ('$5m')
    "The deal is worth US$40m, or A$62m, up from USD 35m.":
        "The deal is worth forty million US dollars, or sixty two million Australian dollars, up from thirty five million US dollars.",
    # a date range with a month on both sides reads both days as dates: 'to' between them
    "The fair runs Sept. 28–Oct. 4, and the sale Dec. 30–Jan. 2.":
        "The fair runs September twenty eighth to October fourth, and the sale December thirtieth to January second.",
    # a range after 'between' is joined by 'and', as 'between 5 and 7' is written
    "Deliveries come between 9–11 a.m. and cost between $15–$25.":
        "Deliveries come between nine and eleven AM and cost between fifteen dollars and twenty five dollars.",
    # a compass letter before a numbered street is its direction, with no house number too
    "Park on E 23rd St or N. 3rd Ave. tonight.": "Park on East twenty third Street or North third Avenue tonight.",
    # a Roman numeral after 'and' and another is read as that one is
    "Henry VII and VIII ruled before Chapter IV and V was written.":
        "Henry the seventh and the eighth ruled before Chapter four and five was written.",
    # a range with a percent sign is a range ('to'); a whole hour paired with another time says no o'clock
    "Rents rose 15–20% and the desk is staffed 7:00–9:00 p.m., from 11:00 to 12:30 and between 1:15 and 3:00.":
        "Rents rose fifteen to twenty percent and the desk is staffed seven to nine PM, from eleven to twelve thirty "
        "and between one fifteen and three.",
    # dimensions with their units on each side are read 'by'; the period of a hyphened unit ('-ft.') is its own
    "The crate is 30 in. × 20 in. × 18 in. and the trail tops out at the 12,340-ft. pass.":
        "The crate is thirty inches by twenty inches by eighteen inches and the trail tops out at the twelve thousand "
        "three hundred forty foot pass.",
}

ZH_READINGS = {
    # a range of decimals of four characters ('10.5-20.5') is no pair of years: read as numbers, not parsed as a year
    "路程约10.5-20.5公里，气温12.5-18.5℃。": "路程约十点五到二十点五公里，气温十二点五到十八点五摄氏度。",
    # a time with seconds, hours of one digit, after a word but a clock's is a race's; a running pace 每公里 after it
    "他以3:08:45完赛，平均配速4'27\"/公里，后半程配速5:01/km，比赛于8:00:05开始。":
        "他以三小时八分四十五秒完赛，平均配速四分二十七秒每公里，后半程配速五分一秒每公里，比赛于八点零分五秒开始。",
    "面积120m²，温度38°C，长50nm。": "面积一百二十平方米，温度三十八摄氏度，长五十纳米。",
    "零下-5°C，5km，3kg。": "零下负五摄氏度，五公里，三公斤。",
    # a comma after a sum's decimals or before no group of three digits is a clause's, no thousands separator
    "合计¥1,350.80,6月3日发货,运费¥15,10月起涨价;共3.5,另有1,200,45件。":
        "合计一千三百五十元八角,六月三日发货,运费十五元,十月起涨价;共三点五,另有一千二百,四十五件。",
    # a kilogram by the name writers give it, 公斤 (千克 the formal one)
    "这袋大米5kg，那箱苹果12.5kg，每kg八元。": "这袋大米五公斤，那箱苹果十二点五公斤，每公斤八元。",
    # below zero after a word of the weather 零下 (a range of temperatures too), as forecasts are read; elsewhere 负
    "今天气温-5°C，夜间-3~5℃，最低气温为-12℃，-23°C，-3减2，-5%。":
        "今天气温零下五摄氏度，夜间零下三到五摄氏度，最低气温为零下十二摄氏度，负二十三摄氏度，负三减二，负百分之五。",
    # a comparison between the word of the weather and the number keeps 零下
    "早晨气温低于-2℃，山区最低气温在-10℃上下。": "早晨气温低于零下二摄氏度，山区最低气温在零下十摄氏度上下。",
    # 两 before a measure word of cooking and counting, and before one with its noun after it
    "生抽2汤匙，盐2茶匙，2大勺糖，大蒜2瓣，鸡蛋2枚，2撮盐，2扇门，2栋楼，2盏灯。":
        "生抽两汤匙，盐两茶匙，两大勺糖，大蒜两瓣，鸡蛋两枚，两撮盐，两扇门，两栋楼，两盏灯。",
    "仓库里有2卷胶带、2筐橘子和2册样本，上了2道菜，铺了2平方米地板。": "仓库里有两卷胶带、两筐橘子和两册样本，上了两道菜，铺了两平方米地板。",
    # two sides by a unit after a count; an en dash between decimals a range, no minus
    "买了5根4×30mm的钉子，正常值为4.2–5.5。": "买了五根四乘三十毫米的钉子，正常值为四点二到五点五。",
    "SQL和GPU都很重要，NASA也是。": "SQL和GPU都很重要，NASA也是。",  # a Chinese voice spells them itself
    # a landline digit by digit, also with its last group after a space; a weekday after a date unbracketed
    "请拨打021-6218 5530，入住日期为2027/8/9（周一）。": "请拨打零二一六二一八五五三零，入住日期为二零二七年八月九日周一。",
    "8月9日(星期天)出发，费用（约5元）。": "八月九日星期天出发，费用（约五元）。",
    # a mobile in spaced groups, a range of degrees, a reference number: digits one by one where they are
    "配送员的电话是139 2057 4468，疫苗请在2~8°C冷藏，订单号是KX-7362。":
        "配送员的电话是幺三九二零五七四四六八，疫苗请在二到八摄氏度冷藏，订单号是KX七三六二。",
    # an em dash between numbers a range, after a date too; capitals before three digits or more a code
    "3—5天内，1月18日14:00—16:00送到，航班CA1172，显卡RTX4090。":
        "三到五天内，一月十八日十四点到十六点送到，航班CA一一七二，显卡RTX四零九零。",
    "理赔编号KH-2026-00481，订单号CL-48-2207-A。": "理赔编号KH二零二六零零四八一，订单号CL四八二二零七A。",
    # after any 码 but 起码 a code digit by digit, and after a card's 后四位
    "动态码 5531，取件码3018，起码3000元，卡号后四位7705。": "动态码五五三一，取件码三零一八，起码三千元，卡号后四位七七零五。",
    # a pickup code's groups joined by 杠, never a date; a telephone number's groups run on
    "快递柜取件码：12-3-4567，会员卡号后4位为4821，客服热线400-820-8820。":
        "快递柜取件码：一二杠三杠四五六七，会员卡号后四位为四八二一，客服热线四零零八二零八八二零。",
    # a card or waybill number in groups of four and a work order's long groups run on, a room digit by digit, a floor 二
    "快递单号是3388 1024 7765，维修单号为20270315-0912，请到B座2106室，在2层。":
        "快递单号是三三八八一零二四七七六五，维修单号为二零二七零三一五零九一二，请到B座二一零六室，在二层。",
    "银行卡号6217 0031 2200 4581已绑定，在208室办理，在2楼。":
        "银行卡号六二一七零零三一二二零零四五八一已绑定，在二零八室办理，在二楼。",
    # a unit after a space (of two letters or more), per a unit and per an amount: the number first, 每 the per
    "空腹血糖为6.1 mmol/L，每次5 mL，10mg/5mL的混悬液。": "空腹血糖为六点一毫摩尔每升，每次五毫升，十毫克每五毫升的混悬液。",
    # a unit of data by its letters, as Chinese speakers say it
    "浓度为20 ng/ml，下载速度20MB/s，我们有 2 A 座，12GB内存，1TB硬盘。": "浓度为二十纳克每毫升，下载速度二十MB每秒，我们有二 A 座，十二GB内存，一TB硬盘。",
    # dimensions: 乘 between the numbers, of two sides or three, the unit after
    "瓷砖规格30×60cm，共2x3m，包裹40×30×15cm。": "瓷砖规格三十乘六十厘米，共二乘三米，包裹四十乘三十乘十五厘米。",
    # a Latin unit after a grouped number and a space as one written against it; a half after a whole number and a
    # measure word after that word, as Chinese speakers say it (一碗半, 两勺半)
    "水表读数1,204 m³,本月用水18 m³。": "水表读数一千二百零四立方米,本月用水十八立方米。",
    "加入糖2½勺和水1½碗,炖3½天。": "加入糖两勺半和水一碗半,炖三天半。",
    # a Roman numeral after 第 a number; a room after its building digit by digit
    "讲解在第III展厅开始，寄至2号楼1502室或3栋2单元501室。": "讲解在第三展厅开始，寄至二号楼一五零二室或三栋二单元五零一室。",
    "补考在4楼407教室。": "补考在四楼四零七教室。",  # a classroom's number too
    # a Roman numeral before a type, a stage or a grade a number ('V型' a shape, 'XL码' a size stay letters)
    "需要排查II型糖尿病，III期肺癌，IV级，II度烧伤；V型领，XL码。": "需要排查二型糖尿病，三期肺癌，四级，二度烧伤；V型领，XL码。",
    "考试95/100分，加3/4杯水。": "考试一百分之九十五分，加四分之三杯水。",  # a fraction before a measure word, never a time
    # a unit after a space, of one letter before a mark; a unit after a range; counts one after another, each with its 两
    "充电器功率65 W（含线0.2 g），血糖参考值4.4~6.6 mmol/L，本季战绩7胜2负。": "充电器功率六十五瓦特（含线零点二克），血糖参考值四点四到六点六毫摩尔每升，本季战绩七胜两负。",
    # a clock hour of 2 is 两 with its minutes (12 stays 十二); a period of the day before am or pm takes its place
    "复诊在2点30分，取药在下午2点半，或12点05分，会议下午2pm开始，晚上8pm结束。":
        "复诊在两点三十分，取药在下午两点半，或十二点零五分，会议下午两点开始，晚上八点结束。",
    "上午10am签到，2点钟出发，3pm返回。": "上午十点签到，两点钟出发，下午三点返回。",
    # a time with seconds after a word of the time a race took: hours, minutes and seconds taken, never a clock
    "她全程用时2:41:05，成绩为0:58:30，耗时1:00:12，于10:03:20冲线。":
        "她全程用时两小时四十一分五秒，成绩为五十八分三十秒，耗时一小时零十二秒，于十点零三分二十秒冲线。",
    # a clock right after its date, never a score; a flat's rooms counted with 两
    "储蓄卡于3月1日14:05支出，5号9:30更新，户型2室1厅，3室2厅2卫。": "储蓄卡于三月一日十四点零五分支出，五号九点三十分更新，户型两室一厅，三室两厅两卫。",
    # guests counted 大 and 小; a price per a Latin unit 每 its name; two consecutive years, a season's, digit by digit
    "套餐含2大2小，燃气3.2元/m³，2025-2026赛季开幕。": "套餐含两大两小，燃气三点二元每立方米，二零二五到二零二六赛季开幕。",
    # a comparison is no count of 大 or 小: 二大于, 三小于; a count before 大约束 still 两
    "若2大于1且3小于5，则有2大约束。": "若二大于一且三小于五，则有两大约束。",
    "3月1日14:05-16:00支付，3月1日晚20:00场。": "三月一日十四点零五分到十六点支付，三月一日晚二十点场。",  # a range of clocks, a clock after 晚
    # a train digit by digit; a gate's, a seat's or a coach's letter after its number (no amperes), a current's ampere
    "G1234次列车，K21次，检票口为12A，座位号是6F，在7车12F，电流为10A。": "G一二三四次列车，K二一次，检票口为十二A，座位号是六F，在七车十二F，电流为十安培。",
    # a Roman number's sign anywhere, its capitals ending a title; a plate's letters among its digits; up to five capitals of a code
    "选修《线性代数Ⅱ》和《概率论III》，见第Ⅳ章；车牌沪C·5D38K，预订编号：SHAMU20481。":
        "选修《线性代数二》和《概率论三》，见第四章；车牌沪C 五D三八K，预订编号：SHAMU二零四八一。",
    "车牌京A·12345，沪B·D6789，粤B 12345。": "车牌京A 一二三四五，沪B D六七八九，粤B 一二三四五。",  # a plate's number after its dot or letter
    # a service line's five digits one by one, after a word of calling or before 客服, 热线, 短信 (its 1 一, 110's 幺)
    "包裹RR987654321DE已到，请联系12306或拨打10086客服，或发短信至95533短信平台，遇险拨打110，共95588元。":
        "包裹RR九八七六五四三二一DE已到，请联系一二三零六或拨打一零零八六客服，或发短信至九五五三三短信平台，遇险拨打幺幺零，共九万五千五百八十八元。",
    # after 第 no count, also with a count after it (第二名十二分, never 第两名)
    "她落后第1名3分，领先第2名12分，第2天2场比赛。": "她落后第一名三分，领先第二名十二分，第二天两场比赛。",
    # half past in a range of times 半 ('6:30—22:00' 六点半到二十二点), alone as written (三十分, as the spec's '下午3:30')
    "门诊8:30—11:30，夜班22:30至6:30，复诊下午1:30。": "门诊八点半到十一点半，夜班二十二点半至六点半，复诊下午一点三十分。",
    # a room's number before 房间 or 号房, a number after 号为, a lottery's issue of five digits or more: digit by digit
    "请到805房间或1603号房找前台，会员编号为10020315，第2026045期大乐透已开奖，两室两房。":
        "请到八零五房间或一六零三号房找前台，会员编号为一零零二零三一五，第二零二六零四五期大乐透已开奖，两室两房。",
    "园区由35kV变电站供电，发电机额定容量500kVA，年发电量1.2MWh。": "园区由三十五千伏变电站供电，发电机额定容量五百千伏安，年发电量一点二兆瓦时。",
    # a match's sets in a list, one not rising: its score with 比, never a range; a colon before one digit 比; a pair
    # before a word of winning or after 比分 a score ('3-5人' stays a range)
    "她以7-5、2-6、6-3击败对手，比分3:1。": "她以七比五、二比六、六比三击败对手，比分三比一。",
    "主队以2-1获胜，最终比分3-2，每组3-5人。": "主队以二比一获胜，最终比分三比二，每组三到五人。",
    # a sum of yuan to the jiao in 元角 (点八 would drop a written zero), 元 after ￥ read once; to the fen as a number
    "本月话费¥36.80，燃气费45.20元，押金￥300.00元，退款0.30元，电费12.35元。":
        "本月话费三十六元八角，燃气费四十五元二角，押金三百元，退款三角，电费十二点三五元。",
    # a price per a number of units: 每 and the number ('5元/10MB' 五元每十MB)
    "国际漫游流量按5元/10MB收费。": "国际漫游流量按五元每十MB收费。",
    # 万元 before a price's unit, the unit after it with 每; a pressure in bar 巴 (CLDR's name)
    "仓库租金1.2万元/月，新房均价6.5万元/平方米，气压1.8bar。": "仓库租金一点二万元每月，新房均价六点五万元每平方米，气压一点八巴。",
    # a hyphen between two numbers before 年 is a range (never 减); a span of years digit by digit
    "合同期3-5年，本馆建于1998-2003年。": "合同期三到五年，本馆建于一九九八到二零零三年。",
    # after a 至 of days a range of times reads 至, a range of amounts 到 as always
    "周一至周五10:00-16:00营业，退货需7-15天。": "周一至周五十点至十六点营业，退货需七到十五天。",
    # dimensions written with spaces around × read 乘 in a Chinese sentence, as written without them
    "箱子尺寸40 × 30 × 20 cm，桌面120 cm × 60 cm。": "箱子尺寸四十乘三十乘二十厘米，桌面一百二十厘米乘六十厘米。",
    # a speed per second reads its amount and unit before 每秒, one per hour 每小时 first, as most writers read them
    "电动车限速25km/h，台风中心风速达到48m/s。": "电动车限速每小时二十五公里，台风中心风速达到四十八米每秒。",
    # a price after its symbol per a unit after a slash reads 每 as after 元; a range of days joined by a dash 至
    "车费¥12/人，鸡蛋¥6/斤，展会定于4月8日—10日举行，报名截止5月2日-3日。":
        "车费十二元每人，鸡蛋六元每斤，展会定于四月八日至十日举行，报名截止五月二日至三日。",
}


def loose(text: str) -> str:
    return " ".join("".join(c if c.isalnum() or c == "'" else " " for c in text.lower().replace("-", " ")).split())


@pytest.mark.parametrize("text", list(READINGS))
def test_reading(text: str) -> None:
    assert loose(normalize(text, "en")) == loose(READINGS[text])


@pytest.mark.parametrize("text", list(ZH_READINGS))
def test_chinese_reading(text: str) -> None:
    assert normalize(text) == ZH_READINGS[text]


def test_a_date_that_ends_a_clause_keeps_its_pauses() -> None:
    assert normalize("Pay by 6/30/2027, or by 7/2/2027: the fee. We close 3rd Jan.", "en") == (
        "Pay by June thirtieth, twenty twenty seven, or by July second twenty twenty seven: the fee. We close the third of January.")


def test_month_names_are_capitalized() -> None:
    assert normalize("It was filed on 11/2/2024 and paid 5 June 2025.", "en") == (
        "It was filed on November second twenty twenty four and paid the fifth of June twenty twenty five.")


def test_a_long_distance_number_keeps_its_one_with_the_area_code() -> None:
    assert normalize("Call 1-800-555-0146.") == "Call one eight hundred, five five five, zero one four six."


def test_acronym_spelling_has_a_switch() -> None:
    assert normalize("The FBI and SQL.", spell_acronyms=False) == "The FBI and SQL."
    n = StreamingNormalizer(spell_acronyms=False)
    assert "".join(c.spoken for c in n.push("The FBI ") + n.flush()) == "The FBI"


def stream(deltas: list[str]) -> str:
    n = StreamingNormalizer("auto")
    commits = [c for d in deltas for c in n.push(d)] + n.flush()
    return "".join(c.spoken for c in commits)


@pytest.mark.parametrize("text", [*READINGS, *ZH_READINGS])
def test_every_split_equals_one_shot(text: str) -> None:
    """Each cut point, one character at a time, and LLM-like pieces give the one-shot output."""
    batch = normalize(text)
    for cut in range(1, len(text)):
        assert stream([text[:cut], text[cut:]]) == batch, cut
    assert stream(list(text)) == batch
    rng = random.Random(text)
    for _ in range(10):
        pieces = random_pieces(text, rng, 1, 6)
        assert stream(pieces) == batch, pieces


@pytest.mark.parametrize(("text", "spoken"), [
    ("iPhone 15 Pro很好，Galaxy S24 Ultra也不错。", "iPhone 十五 Pro很好，Galaxy S二十四 Ultra也不错。"),
    ("Model 3的保养：机油换5W-30或0W-20。", "Model 三的保养：机油换五W三十或零W二十。"),  # an oil's grade one word, W its letter
    ("Email a.b@example.com or visit example.com/a1 today，谢谢。",  # an address's marks in Chinese after Latin words too
     "Email a 点 b 艾特 example 点 com or visit example 点 com 斜杠 a 一 today，谢谢。"),
    # a sentence all in English reads its numbers in English, after a Chinese one too
    ("Your order ships in 3 days.", "Your order ships in three days."),
    ("好的。Your total is $25.50, due on 5/12. 谢谢",
     "好的。Your total is twenty five dollars and fifty cents, due on May twelfth. 谢谢"),
])
def test_a_chinese_turn_reads_numbers_among_latin_words_in_chinese(text: str, spoken: str) -> None:
    assert normalize(text, "zh") == spoken
    for cut in range(1, len(text)):
        n = StreamingNormalizer("zh")
        assert "".join(c.spoken for c in [*n.push(text[:cut]), *n.push(text[cut:]), *n.flush()]) == spoken, cut


# A lower-case conjunction that opens the text, in each language ('y 1 gato' once read "Y un gato" on a process's first call).
FIRST_CALLS = [("es", "y 1 gato", "y un gato"), ("pt", "e 1 gato", "e um gato"), ("it", "e 1 gatto", "e un gatto"),
               ("fr", "y 1 chat", "y un chat"), ("de", "und 1 Katze", "und eine Katze"), ("en", "y 1 cat", "y one cat")]


@pytest.mark.parametrize("first", range(3))
def test_a_fresh_process_reads_its_first_call_as_every_later_one(first: int) -> None:
    """Nothing a first call loads, caches or sets changes a reading: a fresh process, the languages
    in another order each time, reads every text the same on its first call and its second."""
    cases = FIRST_CALLS[first * 2:] + FIRST_CALLS[:first * 2]
    script = ("import json, sys\nfrom voice_tts.tn import normalize\ncases = json.loads(sys.argv[1])\n"
              "print(json.dumps([[normalize(text, language=lang) for lang, text, _ in cases] for _ in range(2)]))")
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))}
    run = subprocess.run([sys.executable, "-c", script, json.dumps(cases)], capture_output=True, text=True, env=env, check=True)
    first_calls, second_calls = json.loads(run.stdout)
    assert first_calls == second_calls == [spoken for _, _, spoken in cases]
