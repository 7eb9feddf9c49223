"""Japanese and Korean normalization: readings per class, stream = one-shot on random splits,
and raw↔spoken offsets that tile both texts."""

from __future__ import annotations

import random

import pytest

from voice_tts.tn import StreamingNormalizer, normalize
from voice_tts.tn.locales import rules

JA = [
    # a slash pair after 血圧 is a blood pressure: の between its numbers, never a fraction
    ("血圧は118/76でした。", "血圧は百十八の七十六でした。"),
    # a time with seconds, hours of one digit, after a word but a clock's is a race's; a running pace per kilometer キロ
    ("彼女は3:12:51で完走し、平均ペースは4'33\"/kmでした。", "彼女は三時間十二分五十一秒で完走し、平均ペースはキロ四分三十三秒でした。"),
    ("スタートは7:05:30、ゴールは午後1:17:02でした。", "スタートは七時五分三十秒、ゴールは午後一時十七分二秒でした。"),
    ("3月1日 9:30:15に送信、会議は9:30:00から", "三月一日 九時三十分十五秒に送信、会議は九時三十分から"),  # after a date, at :00
    # cardinals: 一千 before a myriad, 千 alone
    ("人口は12000000人です", "人口は一千二百万人です"),
    ("1000人と1,500円", "千人と千五百円"),
    ("10005", "一万五"),
    ("0", "零"),
    # ordinals
    ("第21回", "第二十一回"),
    ("3番目", "三番目"),
    # decimals and signs
    ("気温は-2.5度", "気温はマイナス二点五度"),
    ("0.75", "零点七五"),
    # fractions
    ("3/4", "四分の三"),
    ("2 2/3", "二と三分の二"),
    ("2 1/2杯", "二と二分の一杯"),
    ("09012345678に", "〇九〇の一二三四の五六七八に"),
    ("√2/5", "五分のルート二"),
    # dates and weekdays
    ("2025/04/01(火)", "二千二十五年四月一日火曜日"),
    ("2027.06.15.(火)", "二千二十七年六月十五日火曜日"),  # the period after a dotted date is the date's
    ("3月5日(日・祝)", "三月五日日曜日祝日"),
    ("5〜7日", "五から七日"),
    ("煮込みは40〜50分です", "煮込みは四十分から五十分です"),  # minutes said at both ends, as hours are
    # times
    ("14:05に", "十四時五分に"),
    # a plate's numbers apart after its kana (no から); a seat's or gate's letter; a unit after a myriad; a code after 番号
    ("品川500 あ 12-34のお車、10-20人", "品川五百 あ 十二 三十四のお車、十から二十人"),
    ("座席は12A、搭乗口23Cから、電流は12A、1万km走行、注文番号はB20931", "座席は十二A、搭乗口二十三Cから、電流は十二アンペア、一万キロメートル走行、注文番号はB 二〇九三一"),
    ("クーポンコードはAB1234です", "クーポンコードはA B 一二三四です"),
    # a code's capitals as written, up to five of them; a Roman number ending a title, after katakana in English (a sequel)
    ("予約番号はHNDJL40391、講義「統計学Ⅲ」と映画『ロッキーII』", "予約番号はH N D J L 四〇三九一、講義「統計学三」と映画『ロッキーツー』"),
    ("5千km走行、練馬300 さ 45-67", "五千キロメートル走行、練馬三百 さ 四十五 六十七"),
    # a waybill's groups of four by pauses; の between a telephone's groups and a short code's
    ("伝票番号4829-3317-0562、受付番号4821-7730", "伝票番号四八二九 三三一七 〇五六二、受付番号四八二一の七七三〇"),
    ("7:00:30", "七時零分三十秒"),
    # a time with seconds after a word of a race's time: hours, minutes and seconds taken, none of zero
    ("優勝タイムは2:09:45、完走0:52:08、スタートは9:00:05", "優勝タイムは二時間九分四十五秒、完走五十二分八秒、スタートは九時零分五秒"),
    ("09時05分", "九時五分"),
    # percent, measures
    ("割引は15%です", "割引は十五パーセントです"),
    ("2.5kgと100km/h", "二点五キログラムと時速百キロメートル"),  # a speed as CLDR words it
    ("広さは35m²、容量は2m³", "広さは三十五平方メートル、容量は二立方メートル"),
    # money
    ("¥3,980", "三千九百八十円"),
    ("$12.50", "十二ドル五十セント"),
    ("€5億", "五億ユーロ"),
    # telephone and addresses
    ("03-1234-5678", "〇三の一二三四の五六七八"),
    ("support@example.jp", "support アットマーク example ドット jp"),
    # a space written between words is kept: after a postal code, between family and given name
    ("〒150-0002 東京都渋谷区", "郵便番号一五〇の〇〇〇二 東京都渋谷区"),
    ("〒060-0806 札幌市", "郵便番号〇六〇の〇八〇六 札幌市"),
    ("担当は山田 太郎です", "担当は山田 太郎です"),
    # a company's legal form in brackets, before or after its name
    ("(株)山田商事", "株式会社山田商事"),
    ("山田商事(株)の佐藤です", "山田商事株式会社の佐藤です"),
    ("㈱ABCと（有）佐藤", "株式会社ABCと有限会社佐藤"),
    ("(財)日本財団", "財団法人日本財団"),
    # a reference number spelled then digit by digit; the last digits of a card; a Roman numeral after 第 or before a counter
    ("ご予約番号はKR-3375です", "ご予約番号はKR三三七五です"),
    ("番号はKH-2026-00481です", "番号はKH二〇二六〇〇四八一です"),
    ("末尾4821のカード、4821円", "末尾四八二一のカード、四千八百二十一円"),
    ("第Ⅱ期とⅡ期、規約第III章、II型糖尿病、ステージIV、CD店、V型エンジン", "第二期と二期、規約第三章、二型糖尿病、ステージIV、CD店、V型エンジン"),
    ("微分積分Ⅲ（4単位）、刑法 II の試験、英語Ⅰ・Ⅱ", "微分積分三（四単位）、刑法 二 の試験、英語一・二"),
    # a block and its lot after a town or a 丁目; elsewhere a hyphen between numbers is a range
    ("〒231-0023神奈川県横浜市中区山下町1-2", "郵便番号二三一の〇〇二三神奈川県横浜市中区山下町一の二"),
    ("3丁目12-5、1-2日", "三丁目十二の五、一から二日"),
    # three short groups with no leading zero an address's block, lot and house; a floor 'F' 階; on the hour no minutes;
    # a score before a verb of winning
    ("本社は大阪市北区梅田1-12-3の5Fで、受付は9時00分から17時30分まで", "本社は大阪市北区梅田一の十二の三の五階で、受付は九時から十七時三十分まで"),
    ("横浜は名古屋を3-0で下し、大阪は京都を2-1で破った", "横浜は名古屋を三対零で下し、大阪は京都を二対一で破った"),
    # a version read part by part (two parts after a version word), parts of three digits digit by digit;
    # groups of three digits and more with four last are a telephone number
    ("バージョン4.2.1と3.2.1節", "バージョン四点二点一と三点二点一節"),
    ("v2.0.1とVer.2.10とバージョン2.10", "バージョン二点零点一とバージョン二点十とバージョン二点十"),
    ("192.168.0.1と555.555.5555", "一九二点一六八点零点一と五五五の五五五の五五五五"),
    ("0.2%pt上昇、5%OFF", "零点二パーセントポイント上昇、五パーセントOFF"),
    # the iteration mark repeats the Han character before it: a grouped amount after it is read whole
    ("返済は月々16,000円、人々1,000人", "返済は月々一万六千円、人々千人"),
    # a code after a word that names one, digit by digit (after a colon too), but a count before its counter
    ("認証コードは482913です", "認証コードは四八二九一三です"),
    ("カードの下4桁7705とQRコード12枚", "カードの下四桁七七〇五とQRコード十二枚"),
    ("ワンタイムパスワード：804213、暗証番号1234を入力", "ワンタイムパスワード：八〇四二一三、暗証番号一二三四を入力"),
    # units after a space, per a unit, per an amount of one; units CLDR lacks
    ("血糖値は6.1 mmol/L、ビタミンDは30ng/mL", "血糖値は六点一ミリモルパーリットル、ビタミンDは三十ナノグラムパーミリリットル"),
    ("シロップ10mg/5mLを1日1000IU", "シロップ十ミリグラムパー五ミリリットルを一日千国際単位"),
    ("ボンベの圧力は200barです。", "ボンベの圧力は二百バールです。"),  # a pressure in bar, CLDR's name
    # a month and day with a dot: a date after a word of dates or before a weekday, else a decimal
    ("締切は12.24です、発売は6.15(火)、体温は36.5です", "締切は十二月二十四日です、発売は六月十五日火曜日、体温は三十六点五です"),
    # a blood pressure's two numbers joined as said, before the unit
    ("血圧は120/80mmHg、PIN 4821を入力", "血圧は百二十の八十水銀柱ミリメートル、PIN 四八二一を入力"),
    ("ご注文番号は1234-5678、5〜7日", "ご注文番号は一二三四の五六七八、五から七日"),  # a code's groups, not a range
    # a month and day with a slash before 'の' and a time: a date; a unit per another with パー
    ("次回は6/3の10:00、尿酸値は7.5mg/dLです", "次回は六月三日の十時、尿酸値は七点五ミリグラムパーデシリットルです"),
    ("点検は7/14の9時から、確率は1/2の見込み", "点検は七月十四日の九時から、確率は二分の一の見込み"),  # a time written with 時 too
    # a number between Latin words in the language's own numerals; an oil's grade with W its letter and 0 as mechanics say it
    ("iPhone 15 Proを買い、オイルは0W-20です。10W-40も可", "iPhone 十五 Proを買い、オイルはゼロダブリュー二十です。十ダブリュー四十も可"),
    # a number alone in 「」 is a code to type, digit by digit, as after its word; a bus route keeps its zero
    ("暗証番号は4桁の「7025」で、PINは「0831」、「3」を押す、画面に「10」と表示",
     "暗証番号は四桁の「七〇二五」で、PINは「〇八三一」、「三」を押す、画面に「十」と表示"),
    ("都01系統と渋66系統、都05系統は10時09分発", "都〇一系統と渋六十六系統、都〇五系統は十時九分発"),
    # a parcel's code of capitals, digits and capitals sign by sign; a flight's four digits a number
    ("国際郵便RR987654321DEは便名JL1172で届きます", "国際郵便RR九八七六五四三二一DEは便名JL千百七十二で届きます"),
    # a count of zero as it is said, ゼロ; a clock's zero hour and a degree keep 零
    ("0歳から入会でき、入会金は0円、不在票0件、0時に開始、0度まで", "ゼロ歳から入会でき、入会金はゼロ円、不在票ゼロ件、零時に開始、零度まで"),
    # a speed after 秒速, the word that already says per what: its length alone; per second メートル毎秒, as every
    # writer accepts after 風速; per hour CLDR's 時速
    ("最大風速は30m/s、秒速12m/sの風、時速80km/hで走行、平均80km/h",
     "最大風速は三十メートル毎秒、秒速十二メートルの風、時速八十キロメートルで走行、平均時速八十キロメートル"),
    ("瞬間風速は20m/sに達し、風速15m/sの風", "瞬間風速は二十メートル毎秒に達し、風速十五メートル毎秒の風"),
    ("探査機は秒速11.2km/sで、風速8m/sまでは運航します", "探査機は秒速十一点二キロメートルで、風速八メートル毎秒までは運航します"),
    ("初速は3km/sです", "初速は三キロメートル毎秒です"),
    # a weekday range whose last day is written out names the first in full too
    ("美術館は土～日曜日も開館し、窓口は月〜金です", "美術館は土曜日から日曜日も開館し、窓口は月曜日から金曜日です"),
    # a count in baseball's and basketball's words said in English (not a rank); kilovolts
    ("7回2アウトから3ランホームラン、1アウト1塁で2ベースヒット、3ポイントシュート、2ランク上、66kVの送電線。",
     "七回ツーアウトからスリーランホームラン、ワンアウト一塁でツーベースヒット、スリーポイントシュート、二ランク上、六十六キロボルトの送電線。"),
    # a match's sets in a list, one not rising or after a word of a match: its score, never ranges; a colon before one
    # digit is no clock
    ("錦織は7-6、6-4で勝ち、決勝に進んだ。", "錦織は七対六、六対四で勝ち、決勝に進んだ。"),
    ("結果は4:2だった。", "結果は四対二だった。"),
    ("第1セットを6-4で取り、第2セットは3-6で落とした。", "第一セットを六対四で取り、第二セットは三対六で落とした。"),
    # an era's letter before its year with 年, with or without a period; no 年 and no period: no era
    ("契約はH30年4月から、更新はR.9、有効期限はR12年3月末、型番R8です。",
     "契約は平成三十年四月から、更新は令和九年、有効期限は令和十二年三月末、型番アールエイトです。"),
    # 'No.' before a number ナンバー, '#' before a short dial code シャープ (before another number 番), 'K18' 十八金
    ("会議室#3へどうぞ。", "会議室三番へどうぞ。"),
    ("会員No.305の方は#7119へ、K24の指輪はNo.12の棚です。", "会員ナンバー三百五の方はシャープ七千百十九へ、二十四金の指輪はナンバー十二の棚です。"),
    # kilowatt hours as most say them, キロワットアワー, however the symbol is capitalised
    ("年間消費電力量は420kWh、夜間は1KWhあたり28円です。", "年間消費電力量は四百二十キロワットアワー、夜間は一キロワットアワーあたり二十八円です。"),
    # a thousand that ends a number after 万 is 一千, as writers say it; followed by hundreds it stays 千
    ("年会費は31,000円、家族会員は41,500円です。", "年会費は三万一千円、家族会員は四万千五百円です。"),
]

KO = [
    # a label in square brackets keeps them, as writers copy them (and 【】); a link's text loses them
    ("[공지] 12월 3일 오전 2시부터 서버 점검이 있습니다. 자세한 내용은 [여기](https://example.com)를 보세요.",
     "[공지] 십이월 삼일 오전 두시부터 서버 점검이 있습니다. 자세한 내용은 여기를 보세요."),
    # a slash pair after 혈압 is a blood pressure: 에 between its numbers, never a fraction
    ("혈압이 118/76으로 정상입니다.", "혈압이 백십팔에 칠십육으로 정상입니다."),
    # a time with seconds, hours of one digit, after a word but a clock's is a race's; a running pace per kilometer 당
    ("그는 3:02:15로 들어왔고 평균 페이스는 4:18/km였습니다.", "그는 세시간 이분 십오초로 들어왔고 평균 페이스는 킬로미터당 사분 십팔초였습니다."),
    ("3월 1일 9:30:15에 접수", "삼월 일일 아홉시 삼십분 십오초에 접수"),  # after a date a clock
    # cardinals: 일 dropped before 십/백/천 and a lone 만
    ("10000", "만"),
    ("1111", "천백십일"),
    ("100000000", "일억"),
    ("-7", "마이너스 칠"),
    # native numbers before counters, hours and ordinals
    ("사과 3개", "사과 세개"),
    ("최대 3과목까지 들어요", "최대 세과목까지 들어요"),
    ("20살", "스무살"),
    ("1번째", "첫번째"),
    ("22번째", "스물두번째"),
    ("45번째", "사십오번째"),
    ("3개월", "삼개월"),
    ("양말 3짝과 키친타월 2롤", "양말 세짝과 키친타월 두롤"),  # pairs and rolls counted natively
    # 대 counts vehicles and machines before a particle or a mark, never a round ten (an age), a
    # word ('3대 도시' the three great cities, '4대강' the four great rivers) or a number ('1대1')
    ("버스 1대와 차량 12대가", "버스 한대와 차량 열두대가"),
    ("2대씩, 3대.", "두대씩, 세대."),
    ("4대강 사업", "사대강 사업"),
    ("20대 고객", "이십대 고객"),
    ("세계 3대 도시", "세계 삼대 도시"),
    ("1대1 상담", "일대일 상담"),
    ("2시간", "두시간"),
    # months, dates, weekdays
    ("6월 10월", "유월 시월"),
    ("2025/04/01", "이천이십오년 사월 일일"),
    ("3일(토)", "삼일 토요일"),
    ("2027.06.15.(화)입니다", "이천이십칠년 유월 십오일 화요일입니다"),
    ("예약일은 2027.06.15. 오후", "예약일은 이천이십칠년 유월 십오일. 오후"),  # before a space: a full stop
    # a range of counted days reads 에서; days of a month and years 부터, as NeMo's data reads them
    ("5〜7일", "오일에서 칠일"),
    ("배송은 3~5일 정도", "배송은 삼일에서 오일 정도"),
    ("숙성은 10~14일, 굽기는 15~20분", "숙성은 십일에서 십사일, 굽기는 십오분에서 이십분"),  # the counter at both ends
    # a clock in a sentence: every hour native; a timestamp alone on the Sino-Korean 24 hours, as NeMo's data reads it
    ("막차는 23:10에 떠나고 첫차는 05:40입니다", "막차는 스물세시 십분에 떠나고 첫차는 다섯시 사십분입니다"),
    ("16:45", "십육시 사십오분"),
    ("13:00~15:30 사이에 들러 주세요", "열세시에서 열다섯시 삼십분 사이에 들러 주세요"),  # a range before 사이: 에서
    ("11월1〜5일", "십일월일부터 오일"),
    ("80〜90년대", "팔십부터 구십년대"),
    ("오전 9시~오후 6시, 주말은 10시~12시 사이", "오전 아홉시부터 오후 여섯시까지, 주말은 열시에서 열두시 사이"),  # from an hour until an hour; 사이 에서
    # three capitals or more of a code as written, one or two named; a Roman number ending a title in quotes
    ("예약번호 GMP51234, 강의 '미적분학 Ⅲ'과 'Ⅳ'", "예약번호 G M P 오일이삼사, 강의 '미적분학 삼'과 '사'"),
    # the end of a range of times 까지 before a word too, in place of 에; none before 사이 (a span between)
    ("수영장은 06:00~21:00 개방, 주말 08:00~18:00에 강습, 10:00~11:00 사이 점검", "수영장은 여섯시부터 스물한시까지 개방, 주말 여덟시부터 열여덟시까지 강습, 열시에서 열한시 사이 점검"),
    # two numbers in a row before a counter: about so many ('2~3일' 이삼 일, '3~4명' 서너 명), never a clock
    ("상담은 1~2주, 인원은 3~4명, 사과 2~3개, 4~5일 뒤 2~3시 사이", "상담은 일이주, 인원은 서너명, 사과 두세개, 사오일 뒤 두시에서 세시 사이"),
    # weekdays joined by a middle dot: a list (two joined by 과)
    ("매주 화·목·토 수업, 월·금 휴관", "매주 화요일, 목요일, 토요일 수업, 월요일과 금요일 휴관"),
    # a time with seconds after a word of a race's time: hours, minutes and seconds taken (a clock's otherwise)
    ("완주 기록은 3:12:40, 소요시간 0:38:05, 출발 6:30:15", "완주 기록은 세시간 십이분 사십초, 소요시간 삼십팔분 오초, 출발 여섯시 삼십분 십오초"),
    # a number to call after 문의 or 신고, digit by digit
    ("분실 신고는 112로, 요금 문의는 114로 하세요. 신고 12건", "분실 신고는 일일이로, 요금 문의는 일일사로 하세요. 신고 십이건"),
    ("1일~5일 중 하루, 09:00~18:00 동안", "일일부터 오일 중 하루, 아홉시부터 열여덟시 동안"),  # a span within: no 까지
    # times
    ("오전 9:15", "오전 아홉시 십오분"),
    ("13시 05분", "십삼시 오분"),
    ("0:00", "영시"),
    # decimals, fractions and their particle
    ("0.25", "영점이오"),
    ("2/5가 남았다", "오분의 이가 남았다"),
    ("3/4가 남았다", "사분의 삼이 남았다"),
    ("1과3/4", "일과 사분의 삼"),
    # measures and percent
    ("5kg", "오킬로그램"),
    ("보일러 압력은 1.5bar입니다.", "보일러 압력은 일점오바입니다."),
    ("80%", "팔십퍼센트"),
    ("100km/h", "시속 백킬로미터"),
    ("85m²", "팔십오제곱미터"),
    # money
    ("₩25,000", "이만오천원"),
    ("USD 40", "사십달러"),
    ("$3.25", "삼달러 이십오센트"),
    ("₩3조", "삼조원"),
    # telephone, cards, addresses
    ("+82 10-9876-5432", "국가번호 팔이 일공 구팔칠육 오사삼이"),
    ("010-1234-5678로 전화", "공일공 일이삼사 오육칠팔로 전화"),
    ("제2장", "제이장"),
    ("2 1/2컵", "두컵반"),
    ("(02) 555-1234", "공이 오오오 일이삼사"),
    ("(800) 555-0000", "팔영영 오오오 영영영영"),
    ("1111-2222-3333-4444", "신용카드 일일일일 이이이이 삼삼삼삼 사사사사"),
    ("help@naver.com", "help 골뱅이 naver 닷 컴"),
    ("보고서.pdf", "보고서 닷 피디에프"),
    ("https://www.example.co.kr/docs", "더블유더블유더블유 닷 example 닷 씨오 닷 케이알 슬래시 docs"),
    # a number after a word that names a code or digits: digit by digit, also across a space, its zeros 공
    ("주문번호 2026-118473 반품 건은", "주문번호 이공이육 일일팔사칠삼 반품 건은"),
    ("비밀번호 0815를 누르세요", "비밀번호 공팔일오를 누르세요"),
    ("주문번호는 72031 입니다", "주문번호는 칠이공삼일 입니다"),
    # a number that the word before names with 번: of five digits or more a code's, digit by digit; a tyre's psi as said
    ("대기번호 315번, 회원번호는 9024618번입니다", "대기번호 삼백십오번, 회원번호는 구공이사육일팔번입니다"),
    ("앞바퀴 공기압은 32psi입니다", "앞바퀴 공기압은 삼십이피에스아이입니다"),
    ("뒤의 두자리 47", "뒤의 두자리 사칠"),
    ("초대 코드 2209", "초대 코드 이이공구"),
    ("학생 번호 12개", "학생 번호 열두개"),  # a counter still asks for a native number
    ("번 호 2209", "번 호 이천이백구"),  # the cue is one word
    ("가격 2209", "가격 이천이백구"),
    # a company's legal form in brackets, before or after its name; alone it is a list's label
    ("(주)한빛물류에서", "주식회사 한빛물류에서"),
    ("삼성전자(주)에서 보낸", "삼성전자 주식회사에서 보낸"),
    ("삼성전자㈜는", "삼성전자 주식회사는"),
    ("（유）미래상사", "유한회사 미래상사"),
    ("(사)한국소비자연맹과 (재)아름다운재단", "사단법인 한국소비자연맹과 재단법인 아름다운재단"),
    ("(사) 항목", "(사) 항목"),
    # 번 counts times natively before a mark or 씩, never a number's name before a noun; 알 counts pills
    ("하루 3번, 1알씩", "하루 세번, 한알씩"),
    ("3번 출구와 2번씩", "삼번 출구와 두번씩"),
    ("예약 번호는 KR-3375입니다", "예약 번호는 KR삼삼칠오입니다"),
    ("접수 번호는 KH-2026-00481입니다", "접수 번호는 KH이공이육공공사팔일입니다"),
    # 번 counts times after a word of frequency; a range before a native counter starts native too
    ("하루 3번 헹궈 주세요", "하루 세번 헹궈 주세요"),
    ("작업은 6~8시간, 2~4개, 3~5일", "작업은 여섯에서 여덟시간, 둘에서 네개, 삼일에서 오일"),
    # versions; a business's number without an area code (libphonenumber's), but a range of years
    ("버전 5.2.1, 버전 2.10, v1.2.3", "버전 오점이점일, 버전 이점십, 버전 일점이점삼"),
    ("1588-3482로, 1600-1700년", "일오팔팔 삼사팔이로, 천육백 부터 천칠백년"),
    ("0.5%p 인상", "영점오퍼센트포인트 인상"),
    ("피자 2판, 생수 2상자, 설탕 1큰술", "피자 두판, 생수 두상자, 설탕 한큰술"),
    # counters of medicine count natively, below a hundred (tablets, pills below twenty); 정도 and 포인트 are no counters
    ("1정씩 하루 3번, 타일 120장, 학생 99명", "한정씩 하루 세번, 타일 백이십장, 학생 아흔아홉명"),
    ("하루 2포씩, 1캡슐, 30정도, 100포인트", "하루 두포씩, 한캡슐, 삼십정도, 백포인트"),
    ("OTP 코드: 804213입니다", "OTP 코드: 팔공사이일삼입니다"),
    ("혈당 6.1 mmol/L, 시럽 10mg/5mL", "혈당 육점일밀리몰 퍼 리터, 시럽 십밀리그램 퍼 오밀리리터"),
    # dates written with a period and a space after the year, the month and the day; a month and day with a dot
    ("접수는 2026. 12. 1.부터 2027. 1. 15.(금)까지입니다.", "접수는 이천이십육년 십이월 일일부터 이천이십칠년 일월 십오일 금요일까지입니다."),
    ("마감은 2026. 12. 1.", "마감은 이천이십육년 십이월 일일."),
    ("검침일 12.24, 6.15(화), 체중 65.5", "검침일 십이월 이십사일, 유월 십오일 화요일, 체중 육십오점오"),
    ("혈압은 120/80mmHg, PIN 4821을 입력", "혈압은 백이십에 팔십수은주밀리미터, PIN 사팔이일을 입력"),
    ("주문번호 1234-5678입니다", "주문번호 일이삼사 오육칠팔입니다"),
    # a half after a whole before a native counter: the counter, then 반; a code's letters and digits together
    ("물 2½컵, 설탕 1½큰술, 주문번호 AB-2047", "물 두컵반, 설탕 한큰술반, 주문번호 AB이공사칠"),
    # a score before a verb of winning, after either form of the particle; a floor 'F' 층
    ("브라질은 칠레를 4-2로 꺾고 멕시코를 1-0으로 제압했으며 매장은 2F입니다", "브라질은 칠레를 사 대 이로 꺾고 멕시코를 일 대 영으로 제압했으며 매장은 이층입니다"),
    ("점검은 7/14 9시부터입니다", "점검은 칠월 십사일 아홉시부터입니다"),  # a month and day before a time written with 시: a date
    # a Roman numeral after 제 or before a counter; a score with a colon before a verb of winning; games counted natively
    ("제III전시실과 제Ⅱ장, II형 당뇨병, VIP 고객", "제삼전시실과 제이장, 이형 당뇨병, VIP 고객"),
    ("선형대수 II 시험과 일반화학 Ⅲ 실험, 영어 I 수업", "선형대수 이 시험과 일반화학 삼 실험, 영어 I 수업"),
    ("LG가 7:4로 이겨 격차를 3경기로 벌렸고 회의는 7:30으로 옮겼습니다", "LG가 칠 대 사로 이겨 격차를 세경기로 벌렸고 회의는 일곱시 삼십분으로 옮겼습니다"),
    ("시즌 27경기에서 9경기를 이겼다", "시즌 이십칠경기에서 아홉경기를 이겼다"),  # games from twenty on Sino-Korean, as hours
    ("갤럭시 S24 울트라에는 5W-30, 아반떼에는 0W-20 엔진오일", "갤럭시 S이십사 울트라에는 오더블유 삼십, 아반떼에는 영더블유 이십 엔진오일"),
    # a range of clock hours native on both ends; a score before the word of its result
    ("오후 2~4시 사이, 오전 9~11시, 2~4시간", "오후 두시에서 네시 사이, 오전 아홉시에서 열한시, 둘에서 네시간"),
    ("브라질을 상대로 2:1 승리를 거뒀고 3:0 완승, 1:1 무승부", "브라질을 상대로 이 대 일 승리를 거뒀고 삼 대 영 완승, 일 대 일 무승부"),
    # a plate: its first number a number, its last four digit by digit; a unit after a myriad; a code after 번호
    ("차량번호 12가 3456 차량은 1만 km마다, 123허 4567", "차량번호 십이 가 삼사오육 차량은 만킬로미터마다, 백이십삼 허 사오육칠"),
    # one unsaid before 만, 천 and 백 (never before 억); 모 counts with native numbers, 매 (枚) with Sino-Korean ones
    ("수수료는 1만 원, 입장료 1천 원, 1만 2천 원, 1백 명, 1억 원", "수수료는 만 원, 입장료 천 원, 만 이천 원, 백 명, 일억 원"),
    ("두부 1모, 사진 1매, 티켓 2매, 두부 3모", "두부 한모, 사진 일매, 티켓 이매, 두부 세모"),
    # a unit a price is per, by its name; a range of ages says 세 after both ends
    ("가스는 m³당 900원, 대상은 만 6~18세", "가스는 세제곱미터당 구백원, 대상은 만 육세에서 십팔세"),
    ("쌀 1톨, 파 2가닥, 생선 3토막, 소금 1움큼, 노래 2마디, 떡 1덩이; 절전 2모드, 3모델",
     "쌀 한톨, 파 두가닥, 생선 세토막, 소금 한움큼, 노래 두마디, 떡 한덩이; 절전 이모드, 삼모델"),
    # a temperature below zero 영하, as Koreans say the weather; any other negative number 마이너스
    ("최저 -5℃, 최고 3℃, 스키장 기온은 -12°C, 각도 -30°, 수익률 -5%",
     "최저 영하 오도, 최고 삼도, 스키장 기온은 영하 십이도, 각도 마이너스 삼십도, 수익률 마이너스 오퍼센트"),
    ("12가3456 차량, 5천 km 주행, 12가 넘는", "십이 가 삼사오육 차량, 오천킬로미터 주행, 십이가 넘는"),
    ("주문번호 B20931 상품, 주문번호는 AB12345, KE1172편", "주문번호 비 이공구삼일 상품, 주문번호는 에이비 일이삼사오, KE천백칠십이편"),
    ("쿠폰 코드는 AB1234입니다", "쿠폰 코드는 에이비 일이삼사입니다"),
    # a seat's or a gate's letter after its number, no amperes; a current's amperes
    ("좌석은 12A입니다. 탑승구 23C로, 전류 12A", "좌석은 십이 A입니다. 탑승구 이십삼 C로, 전류 십이암페어"),
    # a code of capitals, digits and capitals sign by sign, its zeros 공, and a customs code's digits after its letter
    ("국제우편 RR987654321DE, 통관부호 P240812345670을", "국제우편 RR구팔칠육오사삼이일DE, 통관부호 P이사공팔일이삼사오육칠공을"),
    # hours of a day's duration in Sino-Korean from twenty on (이십사 시간), fewer in native numbers
    ("매장은 24시간 영업, 48시간 이내 환불, 배송은 3시간, 12시간 뒤", "매장은 이십사시간 영업, 사십팔시간 이내 환불, 배송은 세시간, 열두시간 뒤"),
    # a date with a middle dot naming an event: the month a number, the day digit by digit, a round ten a number
    ("8·15 광복절과 3·1절, 6·25 전쟁, 4·19 혁명, 6·10 만세운동", "팔일오 광복절과 삼일절, 육이오 전쟁, 사일구 혁명, 육십 만세운동"),
    ("초속 15m/s의 바람, 시속 90km/h로", "초속 십오미터의 바람, 시속 구십킬로미터로"),  # the word before says per what
    # a weekday range whose last day is written out names the first in full too; 까지 after a range's second end
    # whatever period of the day comes before it
    ("체육관은 수~토요일 저녁 6시~새벽 2시 운영합니다.", "체육관은 수요일부터 토요일까지 저녁 여섯시부터 새벽 두시까지 운영합니다."),
    ("아침 7시~낮 12시, 오후 1시~밤 9시입니다.", "아침 일곱시부터 낮 열두시까지, 오후 한시부터 밤 아홉시까지입니다."),
    # tablets natively below twenty, a prescription's count from twenty on in Sino-Korean; pills natively up to
    # ninety-nine, as any count; kilovolts
    ("혈압약 90정을 받았고 1회 2정, 비타민 30알, 154kV 송전선.", "혈압약 구십정을 받았고 일회 두정, 비타민 서른알, 백오십사킬로볼트 송전선."),
    ("영양제 45알은 한 달 반 분량입니다.", "영양제 마흔다섯알은 한 달 반 분량입니다."),
    # 대 right after a vehicle or a machine counts it, whatever follows; else only before a particle or a mark
    ("택시 2대 배차, 노트북 1대 기준, 버스 30대 운행, 3대 도시, 20대 고객", "택시 두대 배차, 노트북 한대 기준, 버스 서른대 운행, 삼대 도시, 이십대 고객"),
    # a match's sets in a list, one not rising or after a word of a match: its score, never ranges; a colon before one
    # digit is no clock
    ("그는 7-5, 2-6, 6-3으로 승리했다.", "그는 칠 대 오, 이 대 육, 육 대 삼으로 승리했다."),
    ("결과는 4:2였다.", "결과는 사 대 이였다."),
    ("첫 세트를 6-4로 따냈지만 3-6으로 내줬다.", "첫 세트를 육 대 사로 따냈지만 삼 대 육으로 내줬다."),
    # a flight's number with a leading zero digit by digit, its zeros 공 as a phone's; one without a number
    ("대한항공 KE 085편과 아시아나 OZ0102편, KE1172편", "대한항공 KE 공팔오편과 아시아나 OZ공일공이편, KE천백칠십이편"),
    # a number after a code's noun counted by 번 is a number, in Sino-Korean; a code alone digit by digit; a gate's
    # number with its particle before it Sino-Korean too, never a count
    ("대기번호 315번 고객님, 예약번호는 12번이고 회원번호 4721입니다.", "대기번호 삼백십오번 고객님, 예약번호는 십이번이고 회원번호 사칠이일입니다."),
    ("탑승구는 23번, 승강장은 4번, 하루 3번.", "탑승구는 이십삼번, 승강장은 사번, 하루 세번."),
    # a gold's fineness by the letter's name; its weight in 돈 counted natively
    ("14K 팔찌는 2돈, 24K골드 반지는 1돈입니다.", "십사 케이 팔찌는 두돈, 이십사 케이골드 반지는 한돈입니다."),
]


@pytest.mark.parametrize(("written", "spoken"), JA)
def test_japanese_readings(written: str, spoken: str) -> None:
    assert normalize(written, "ja") == spoken


@pytest.mark.parametrize(("written", "spoken"), KO)
def test_korean_readings(written: str, spoken: str) -> None:
    assert normalize(written, "ko") == spoken


def test_korean_words_keep_their_spaces() -> None:
    assert normalize("안녕하세요 여러분 오후 3시에 봬요", "ko") == "안녕하세요 여러분 오후 세시에 봬요"


def test_a_space_between_han_words_is_kept_in_japanese_and_dropped_in_chinese() -> None:
    assert normalize("山田 太郎です", "ja") == "山田 太郎です"
    assert normalize("你好 世界", "zh") == "你好世界"


def test_a_sentence_end_after_a_number_is_punctuation() -> None:
    assert normalize("合計は3.", "ja") == "合計は三."
    assert normalize("합계는 3.", "ko") == "합계는 삼."


def test_a_decorative_tilde_is_not_a_range() -> None:
    assert normalize("감사합니다~", "ko") == "감사합니다"


def test_locale_modules_read_list_numbers_and_digit_runs() -> None:
    ja, ko = rules("ja"), rules("ko")
    assert ja.cardinal(2026) == "二千二十六"
    assert ko.cardinal(2026) == "이천이십육"
    assert ja.digits("0120") == "〇一二〇"
    assert ko.digits("0120") == "영일이영"
    # past 2^53, where unicode-rbnf's float would pick the 京 rule for 9999999999999999
    assert ja.cardinal(9999999999999999) == "九千九百九十九兆九千九百九十九億九千九百九十九万九千九百九十九"
    assert ko.cardinal(82345670123135111) == "팔경이천삼백사십오조육천칠백일억이천삼백십삼만오천백십일"


def test_currencies_are_cldr_s_and_an_english_word_in_capitals_is_no_code() -> None:
    assert normalize("₹500", "ko") == "오백 인도 루피"
    assert normalize("HK$ 30", "ja") == "三十香港ドル"
    assert normalize("CAD 2,500", "ko") == "이천오백 캐나다 달러"  # CLDR's symbol CA$: a currency of its own
    assert normalize("TOP 10", "ko") == "TOP 십"  # the Tongan paʻanga's code, but an English word


REPLIES = {
    "ja": [
        "血圧は118/76でした。",
        "ご注文の合計は¥12,800で、3月5日(水)の14:30にお届けします。煮込みは40〜50分です。",
        "第2四半期の売上は前年比-3.5%、約1億2000万円でした。詳細は03-1234-5678まで。",
        "割引は1/3、送料は$4.99です。info@example.jpへどうぞ。1 1/2カップ、2025/04/01",
        "契約はH30年4月から、更新はR.9、有効期限はR12年3月末、型番R8です。",
        "お部屋は35m²、ご予約日は2027.06.15.(火)です。",
        "年会費は31,000円、家族会員は41,500円です。",
        "会員No.305の方は#7119へ、K24の指輪はNo.12の棚です。",
        "年間消費電力量は420kWh、夜間は1KWhあたり28円です。",
        "〒150-0002 東京都渋谷区2丁目、(株)山田商事の山田 太郎まで。",
        "末尾4821のカード、第Ⅱ期の会員、ご予約番号はKR-3375です。",
        "お届け先は〒231-0023神奈川県横浜市中区山下町1-2、3丁目12-5でよろしいですか。",
        "店舗は大阪市北区梅田1-12-3の5Fで、11時00分開店、昨日は2-1で下しました。",
        "認証コードは482913、下4桁7705、血糖値は6.1 mmol/L、シロップ10mg/5mL、発売は6.15(火)です。",
        "次回は6/3の10:00、尿酸値は7.5mg/dLです。点検は7/14の9時から。",
        "詳細は規約第III章、II型の方はステージIVまで。",
        "予約番号はHNDJL40391、講義「統計学Ⅲ」と映画『ロッキーII』です。",
        "iPhone 15 Proを買い、オイルは0W-20です。10W-40も可",
        "お荷物（伝票番号4829-3317-0562）は明日の14時～16時の間にお届けします。",
        "品川500 あ 12-34のお車、座席は12A、1万km走行、注文番号はB20931です。",
        "暗証番号は4桁の「7025」で、都01系統のバスは7〜10分間隔です。",
        "国際郵便RR987654321DEは0歳児向け、最大風速30m/s、秒速12m/sの予報です。",
        "9回2アウトから3ランホームラン、2ランク上の3ポイントシュート、66kVの送電線です。",
        "錦織は7-6、6-4で勝ち、決勝に進んだ。",
        "美術館は土～日曜日も開館し、風速8m/sまでは運航します。",
        "講義「統計学Ⅱ（2単位）」と民法 II の試験です。",
    ],
    "ko": [
        "혈압이 118/76으로 정상입니다.",
        "[공지] 12월 3일 오전 2시부터 서버 점검이 있습니다. 자세한 내용은 [여기](https://example.com)를 보세요.",
        "주문하신 상품은 ₩25,000이고 6월 10일(월) 오후 3:30에 도착합니다.",
        "3번째 고객님께 사과 20개를 드립니다. 문의는 010-1234-5678 또는 help@naver.com으로 주세요.",
        "전체의 5/6이 완료되었고 속도는 60km/h, 온도는 -3.5°C입니다. USD 40, 2시간 5분~",
        "인증번호는 582913 이고 카드 뒤 네자리 7710, 금액 7710원입니다.",
        "(주)한빛물류에서 보낸 5kg 택배, 삼성전자(주)에서 온 편지, (사) 항목",
        "예약일은 2027.06.15.(화), 평일 오전 9시~오후 6시, 버스 1대와 20대 고객, 객실 85m²입니다.",
        "배송은 3~5일, 11월1〜5일(수〜일), 80〜90년대, 4대강 2대씩.",
        "하루 3번, 1알씩 드시고 3번 출구로 오세요. 예약 번호는 KR-3375입니다.",
        "물 1L에 희석해 하루 3번 헹구고, 작업은 6~8시간, 23.4kg 캐리어는 오후 2시~4시에 옵니다.",
        "한국은 일본을 2-1로 꺾고 매장 3F에서 축하했습니다.",
        "OTP 코드: 804213, 1정씩 타일 120장, 혈당 6.1 mmol/L, 시럽 10mg/5mL, 접수는 2026. 12. 1.부터 6.15(화)까지.",
        "물 2½컵, 설탕 1½큰술, 주문번호 AB-2047, 점검은 7/14 9시부터",
        "투어는 제III전시실에서 시작하며 LG가 7:4로 이겨 3경기 차입니다.",
        "예약번호 GMP51234, 강의 '미적분학 Ⅲ'은 오전 9시~오후 1시, 주말 10시~12시 사이입니다.",
        "갤럭시 S24 울트라에는 5W-30, 아반떼에는 0W-20 엔진오일",
        "운송장 번호 6071-2345-8890은 오후 2~4시 사이에, 대표팀은 2:1 승리를 거뒀습니다.",
        "차량번호 12가 3456 차량은 1만 km마다, 주문번호 B20931, 좌석은 12A입니다.",
        "갱신 수수료는 1만 원이며 사진 1매와 두부 1모, 1억 원이 필요합니다.",
        "3·1절과 6·25 전쟁 기념관은 24시간 개방하며, 통관부호는 P240812345670입니다.",
        "혈압약 90정을 받았고 1회 2정, 비타민 30알, 154kV 송전선입니다.",
        "승합차 2대 기준 견적이며 영양제 45알이 남았습니다.",
        "매주 월·수·금 19:00~22:00에 열며 2~3일 전 신청, 문의는 114로 해 주세요.",
        "하프 코스 우승 기록은 1:04:12였고, 2위 기록은 1:05:30입니다.",
        "그는 7-5, 2-6, 6-3으로 승리했다.",
        "14K 팔찌는 2돈, 24K골드 반지는 1돈입니다.",
        "경제학원론 II 기말고사와 회계원리Ⅱ 수업입니다.",
        "대한항공 KE 085편과 아시아나 OZ0102편, KE1172편은 오후 3시에 출발합니다.",
        "대기번호 315번 고객님, 예약번호는 12번이고 회원번호 4721입니다. 탑승구는 23번, 승강장은 4번, 하루 3번.",
        "매일 12:00~14:00 사이 점심, 19:00~20:30에 수업, 숙성은 10~14일입니다.",
        "운동화 2짝, 랩 12롤을 주문했습니다.",
        "체육관은 수~토요일 저녁 6시~새벽 2시 운영합니다.",
    ],
}


def _stream(text: str, language: str, rng: random.Random):
    normalizer = StreamingNormalizer(language)
    commits, i = [], 0
    while i < len(text):
        step = rng.randint(1, 5)
        commits += normalizer.push(text[i:i + step])
        i += step
    return commits + normalizer.flush()


@pytest.mark.parametrize("language", ["ja", "ko"])
def test_stream_equals_one_shot_and_offsets_tile(language: str) -> None:
    rng = random.Random(29)
    for text in REPLIES[language]:
        one_shot = normalize(text, language)
        for _ in range(40):
            commits = _stream(text, language, rng)
            assert "".join(c.spoken for c in commits) == one_shot
            raw_pos = spoken_pos = 0
            for c in commits:
                assert (c.raw_start, c.spoken_start) == (raw_pos, spoken_pos)
                assert text[c.raw_start:c.raw_end] == c.raw
                raw_pos, spoken_pos = c.raw_end, c.spoken_end
            assert raw_pos == len(text)
            assert spoken_pos == len(one_shot)


@pytest.mark.parametrize("language", ["ja", "ko"])
def test_a_number_commits_once_the_character_after_it_arrives(language: str) -> None:
    normalizer = StreamingNormalizer(language)
    assert normalizer.push("12") == []  # '12' may go on: '123', '12.5', '12개'
    spoken = "".join(c.spoken for c in normalizer.push("人" if language == "ja" else "명 "))
    assert spoken.startswith("十二" if language == "ja" else "열두")


# --- "auto": the language read from the script ---------------------------------------------

AUTO = [
    ("今日は12345円です。", "今日は一万二千三百四十五円です。"),  # kana: Japanese rules
    ("오늘은 3개 샀어요. 오후 3:30", "오늘은 세개 샀어요. 오후 세시 삼십분"),  # Hangul: Korean rules
]


@pytest.mark.parametrize(("written", "spoken"), AUTO)
def test_auto_turns_take_japanese_or_korean_rules_from_the_script(written: str, spoken: str) -> None:
    assert normalize(written, "auto") == spoken


@pytest.mark.parametrize(("text", "language"), [("我有2个苹果，2024年", "zh"), ("I have 3 apples at 10:30 am", "en")])
def test_auto_keeps_chinese_and_english_rules(text: str, language: str) -> None:
    assert normalize(text, "auto") == normalize(text, language)


def test_auto_decides_from_committed_text_only() -> None:
    # The number comes before any Hangul is committed: it keeps the routing of today (Han-like
    # script after it); everything after the first Hangul is Korean.
    assert normalize("3시에 3시", "auto") == "三시에 세시"


def test_auto_detection_starts_over_with_the_next_turn() -> None:
    normalizer = StreamingNormalizer("auto")
    normalizer.push("注文は3個です。")
    normalizer.flush()
    spoken = "".join(c.spoken for c in normalizer.push("I have 3 apples.") + normalizer.flush())
    assert "three" in spoken


@pytest.mark.parametrize("text", [
    "ご注文は¥12,800で、3月5日(水)の14:30にお届けします。",
    "주문하신 상품은 ₩25,000이고 6월 10일(월) 오후 3:30에 도착합니다.",
    "東京2024年、価格は3.5%上昇。I paid $5 at 3pm.",
    "我有2个苹果，价格12.5元。",
])
def test_auto_stream_equals_one_shot(text: str) -> None:
    rng = random.Random(7)
    one_shot = normalize(text, "auto")
    for _ in range(40):
        commits = _stream(text, "auto", rng)
        assert "".join(c.spoken for c in commits) == one_shot
        assert "".join(c.raw for c in commits) == text
