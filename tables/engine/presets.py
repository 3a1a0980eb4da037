"""The named rule sets: one per seed (the rules brief, "Named presets") and two common house
games. Every parameter is set explicitly and commented with the seed line it comes
from ("000:123" is line 123 of seed 000, the casino's own rule text); where the seed says
nothing the comment says *default*, as the rules brief asks.
"""

from __future__ import annotations

from types import MappingProxyType

from .rules import RuleSet

IT_LIVE = RuleSet(
    name="it-live",
    decks=6,  # 000:7 "Si utilizzano 6 mazzi da 52 carte."
    burn_on_shuffle=0,  # default: 000 says nothing of burns after a shuffle
    burn_when="shuffle",  # default: nothing to burn
    penetration=None,  # default: 000 places no cut card
    # 000:91 "una carta scoperta a ciascuna mano, servendo per ultimo se stesso, e una seconda carta
    # scoperta solo alle mani"
    hole_card="none",
    dealer_natural_takes="all",  # default: 000 does not say (000:39 "tutti i giocatori perdono")
    dealer_hits_soft_17=False,  # 000:103-104 "con 17 o più è obbligato a restare. L'asso per il dealer vale sempre 11"
    natural_pays=(3, 2),  # 000:100 "viene pagato con un rapporto di 3 a 2"
    # 000:64 "I totali con i quali è consentito ... raddoppiare variano"; the basic strategy decides
    # (000:112)
    double_on=None,
    double_hard_only=False,  # default: the strategy chart doubles soft hands too
    double_after_split=False,  # 000:122 "non può ripeterlo né eventualmente effettuare un raddoppio"
    double_card_face="up",  # 000:91 every card of the live game is dealt face up
    split_by="value",  # 000:60 "dello stesso valore numerico"
    no_split_values=frozenset(),  # default: 000 forbids no pair
    max_split_hands=2,  # 000:122 "Se la mano ha effettuato uno split, non può ripeterlo"
    resplit_aces=False,  # 000:60 "Gli Assi solitamente possono essere divisi una volta sola"
    split_aces_one_card=True,  # 000:123 "Lo split di Assi riceve una sola carta per ciascuna mano."
    split_21_is_natural=False,  # 000:124 "il punto fatto non è Black Jack ma 21"
    surrender="cash_out",  # 000:107-109 "un'offerta di resa creata dal sistema ... incassa direttamente l'offerta"
    surrender_returns=(1, 2),  # default: unused by a cash-out game (the offer is an amount)
    even_money=False,  # default: 000 offers no even money
    insurance=True,  # 000:127 "il giocatore può puntare metà della posta iniziale"
    insurance_stake="half",  # 000:127 "metà della posta iniziale"
    insurance_pays=(2, 1),  # 000:127 "l'assicurazione viene pagata 2 a 1"
    insurance_on_natural=True,  # default: the seed does not keep a blackjack from insurance
    push_carries_over=False,  # 000:98 "A parità di punto il colpo è nullo"
    dealer_completes_when_all_bust=True,  # 000:133 "esaurire il colpo anche se tutti i giocatori hanno superato il 21"
    back_betting=False,  # default: the live game's many players share a hand, nobody bets behind
    dealer_plays_basic_strategy=True,  # 000:92 "Il dealer fa il gioco seguendo le regole della basic strategy"
    live_must_hit_below=11,  # 000:110 "totalizza un punteggio inferiore a 11, deve chiedere carta"
    live_stand_from=17,  # 000:111 "raggiunge il punteggio minimo di 17, non riceve più nè ulteriori carte"
    # 000:132 "bruciarle, terminare la mano, indi procedere a rimescolare l'intero sizain"
    reshuffle_after_exposed=True,
    min_bet=1,  # default: limits are set per table (000:19 "I limiti di puntata variano")
    max_bet=2**53 - 1,  # default: set per table
    boxes=7,  # default: 000 gives no number of hands
    rounding="down",  # default: the house pays to the minor unit below
    # default: 000:108 "un'offerta di resa creata dal sistema su base statistica" states no
    # margin; the house default is 2% (1:50) of the hand's fair value, a round figure of
    # the order of the game's own house edge (1.12%: `manage.py house_edge --ruleset
    # it-live`). A table sets its own with the override cashout_margin=N:D.
    cashout_margin=(1, 50),
)

IT_CLASSIC = RuleSet(
    name="it-classic",
    decks=4,  # 001:7 "Uno, due, tre o quattro mazzi di carte mescolati assieme" (the rules brief: preset 4)
    burn_on_shuffle=3,  # 001:9 "fa uscire alcune carte (solitamente tre) dall'alto del mazzo e le mette da parte"
    # 001:9 "vi colloca il mazzo a faccia in giù, quindi fa uscire alcune carte": as the cut shoe is
    # set down, before any bet
    burn_when="shuffle",
    penetration=(
        30,
        50,
    ),  # 001:9 "una seconda carta-indicatore a circa 40 carte dalla fine" ("circa": 40 +/- 10)
    # 001:13 "Se la carta scoperta del mazziere è da 10 punti, o è un Asso, questi guarda la propria
    # carta coperta"
    hole_card="peek",
    dealer_natural_takes="all",  # default: with peek no double or split stake is ever on the table
    dealer_hits_soft_17=False,  # 001:33 "se questo gli dà 17 o più, senza sballare, non può più pescare"
    natural_pays=(
        3,
        1,
    ),  # 001:38 "I Black Jack sono pagati 3 a 1." (kept as written, the rules brief)
    # 001:29 "dopo aver guardato le prime due carte ... può decidere di raddoppiare" (10-11 variant:
    # "A volte")
    double_on=None,
    double_hard_only=False,  # default: 001 does not restrict soft doubles
    double_after_split=False,  # default: 001 does not say
    double_card_face="down",  # 001:29 "riceve una sola carta coperta"
    split_by="value",  # 001:31 "una coppia (per esempio due 6 o due K)" - default value, as the rules brief
    no_split_values=frozenset(),  # default: 001 forbids no pair
    max_split_hands=None,  # 001:31 "Tutte le coppie consecutive possono esser separate."
    resplit_aces=False,  # 001:31 "Se ricevendo una nuova carta, che non sia un Asso"
    split_aces_one_card=True,  # 001:31 "se si separa una coppia di Assi si può ricevere una sola carta per ogni Asso"
    split_21_is_natural=False,  # 001:31 "Un totale di 21 punti ... dopo la separazione non conta come Black Jack"
    surrender="none",  # default: 001 offers no surrender
    surrender_returns=(1, 2),  # default: unused
    even_money=False,  # default: 001 offers no even money
    insurance=True,  # 001:21 "i giocatori hanno la possibilità di fare una puntata detta assicurazione"
    insurance_stake="half",  # 001:21 "una posta del valore pari alla metà della sua puntata"
    insurance_pays=(2, 1),  # 001:21 "viene pagata 2 a 1"
    insurance_on_natural=True,  # default: the seed does not keep a blackjack from insurance
    push_carries_over=False,  # 001:36 "la posta del giocatore è sempre restituita"
    dealer_completes_when_all_bust=False,  # 001:27 "Se tutti i giocatori hanno sballato, getta le proprie carte"
    back_betting=False,  # default: 001:13 lets a player take several boxes, not bet behind another's
    dealer_plays_basic_strategy=False,  # 001:23 each player decides his own hand
    live_must_hit_below=11,  # default: live game only
    live_stand_from=17,  # default: live game only
    reshuffle_after_exposed=False,  # default: 001:9 "può rimescolarle in qualsiasi momento"
    min_bet=1,  # 001:11 "il casino stabilisce il limite massimo e minimo" - set per table
    max_bet=2**53 - 1,  # 001:11 - set per table
    boxes=7,  # 001:7 "sei o sette spazi per le puntate"
    rounding="down",  # default
    cashout_margin=(0, 1),  # default: no cash-out in this game
)

IT_SABOT = RuleSet(
    name="it-sabot",
    decks=6,  # default: 002 names a sabot but not the decks in it
    burn_on_shuffle=5,  # 002:10-11 "sfila le prime cinque carte dal sabot e le brucia"
    # 002:10 "Finite le puntate, il mazziere sfila le prime cinque carte": after the bets, before
    # the first card
    burn_when="bets_down",
    penetration=None,  # default: 002 places no cut card
    # 002:13-14 "una seconda carta sempre scoperta, salvo la propria che si darà coperta"; 002:24-25
    # "scopre la sua seconda carta"
    hole_card="no_peek",
    dealer_natural_takes="all",  # default (the rules brief)
    # 002:26-27 "se ha fino a 16 punti, deve chiamare carta; - con 17 o più punti è obbligato a
    # restare"
    dealer_hits_soft_17=False,
    natural_pays=(3, 2),  # 002:39-40 "il banco gli paga la puntata una volta e mezza"
    double_on=frozenset(
        {9, 10, 11}
    ),  # 002:34-36 "da 9 a 11 punti, possono raddoppiare ... una sola carta"
    double_hard_only=False,  # default: 002 says totals, not hard totals
    double_after_split=False,  # default: 002 does not say
    double_card_face="up",  # 002:11-12 cards "scoperte"
    split_by="value",  # 002:42 "due carte dello stesso valore" (rank variant: 002:45-48)
    no_split_values=frozenset(),  # default: 002 forbids no pair
    max_split_hands=2,  # default: 002:44-45 describes one split into two hands
    resplit_aces=False,  # default: 002:48-49 "Nel caso di due Assi ... una solo chiamata"
    split_aces_one_card=True,  # 002:48-49 "con diritto a una solo chiamata"
    split_21_is_natural=False,  # 002:38 "la combinazione di sole due carte" - default: not a natural after a split
    surrender="none",  # default: 002 offers no surrender
    surrender_returns=(1, 2),  # default: unused
    even_money=False,  # default: 002 offers no even money
    insurance=True,  # 002:51-53 "i giocatori possono ricorrere all'Assicurazione"
    insurance_stake="up_to_half",  # 002:53-54 "non può superare la metà della puntate di base"
    insurance_pays=(2, 1),  # 002:55 "l'Assicurazione viene pagata doppia"
    insurance_on_natural=True,  # default: the seed does not keep a blackjack from insurance
    # 002:29-30 "congela per la mano successiva le puntate di chi ha realizzato pari punteggio";
    # 002:40
    push_carries_over=True,
    # 002:24 "Se sono rimasti giocatori in gioco, il croupier scopre la sua seconda carta"
    dealer_completes_when_all_bust=False,
    # 002:4-9 "possono essere collocate ... anche in una o più delle altre caselle ... chi ha
    # puntato la somma più alta"
    back_betting=True,
    dealer_plays_basic_strategy=False,  # 002:17-18 the player says "carta" or "sto"
    live_must_hit_below=11,  # default: live game only
    live_stand_from=17,  # default: live game only
    reshuffle_after_exposed=False,  # default
    min_bet=1,  # 002:3-4 "libere, salvo un massimo fissato dal casinò" - set per table
    max_bet=2**53 - 1,  # 002:3-4 - set per table
    boxes=7,  # 002:23-24 "Il gioco prosegue di casella in casella fino alla settima."
    rounding="down",  # default
    cashout_margin=(0, 1),  # default: no cash-out in this game
)

EU_ONLINE = RuleSet(
    name="eu-online",
    decks=6,  # default: 003 does not say how many decks
    burn_on_shuffle=0,  # default: an online game burns nothing
    burn_when="shuffle",  # default: nothing to burn
    penetration=None,  # default: 003 places no cut card
    # 003:3 "il dealer prende la sua seconda carta solamente dopo che il giocatore ha giocato";
    # 003:32
    hole_card="none",
    dealer_natural_takes="all",  # default (the rules brief); 003:10 "il giocatore perde la sua scommessa iniziale"
    dealer_hits_soft_17=False,  # 003:33 "Il Banco si ferma a 17 (sia soft che hard)."
    natural_pays=(3, 2),  # 003:15 "il pagamento normale della scommessa 3 a 2"
    double_on=frozenset(
        {9, 10, 11}
    ),  # 003:19 "il totale hard delle loro prime due carte equivale a 9, 10 o 11"
    double_hard_only=True,  # 003:19 "il totale hard"
    double_after_split=True,  # 003:19 "sia sulle mani originarie che su quelle separate"; 003:21, 003:24
    double_card_face="up",  # default: 003 shows the card
    split_by="value",  # 003:22 "due carte dello stesso valore (per es. due 8)"
    no_split_values=frozenset(
        {4, 5, 10}
    ),  # 003:22 "Non puoi separare due carte con valore 4, 5, 10."
    max_split_hands=2,  # 003:25 "Una mano può essere separata una volta sola"
    resplit_aces=False,  # 003:25 "Una mano può essere separata una volta sola"
    split_aces_one_card=True,  # 003:25 "verrà data solo una carta in più per ogni mano"
    # 003:26 "Un 21 che risulti da due carte di uno Split non si considera un Blackjack naturale"
    split_21_is_natural=False,
    surrender="vs_non_ace",  # 003:7-8 "La carta scoperta non è un Asso: il banco offre la Resa"
    surrender_returns=(1, 2),  # 003:8 "perdono metà della loro puntata originale"
    even_money=True,  # 003:12-14 "si offre al giocatore un Pagamento alla Pari (Even Money)"
    insurance=True,  # 003:9-10 "il banco offre l'Assicurazione"
    insurance_stake="half",  # 003:10 "il cui valore è la metà della scommessa originaria"
    insurance_pays=(2, 1),  # 003:10 "viene pagato 2 a 1 sulla scommessa dell'Assicurazione"
    # 003:10 "quando la carta scoperta del Banco è un asso e il giocatore non fa Blackjack"; 003:13
    # the blackjack gets even money
    insurance_on_natural=False,
    push_carries_over=False,  # 003:36 "Al giocatore viene restituita la puntata."
    dealer_completes_when_all_bust=False,  # default: 003 does not say
    back_betting=False,  # default
    dealer_plays_basic_strategy=False,  # 003:17 the player clicks Hit or Stand
    live_must_hit_below=11,  # default: live game only
    live_stand_from=17,  # default: live game only
    reshuffle_after_exposed=False,  # default
    min_bet=1,  # default: set per table
    max_bet=2**53 - 1,  # default: set per table
    boxes=7,  # default
    rounding="down",  # default
    cashout_margin=(0, 1),  # default: no cash-out in this game
)

HOYLE = RuleSet(
    name="hoyle",
    decks=6,  # 004:7 "Nejoblíbenější je hra se šesti balíčky (312 karet)."
    burn_on_shuffle=0,  # default: 004 burns nothing
    burn_when="shuffle",  # default: nothing to burn
    penetration=(60, 75),  # 004:23 "posledních 60 až 75 karet nebude použito"
    # 004:33 "Je-li dealerskou kartou lícem nahoru deset karet nebo eso, podívají se na svou kartu
    # lícem dolů"
    hole_card="peek",
    # default: with peek no double or split stake is ever on the table (004:31 "ale žádná další
    # částka")
    dealer_natural_takes="all",
    dealer_hits_soft_17=False,  # 004:43 "musí krupiér počítat eso jako 11 a stát"
    natural_pays=(3, 2),  # 004:31 "jeden a půlnásobek částky jejich sázky"
    double_on=frozenset(
        {9, 10, 11}
    ),  # 004:55 "když původní dvě karty rozdají celkem 9, 10 nebo 11"
    double_hard_only=False,  # default: 004 says totals
    double_after_split=False,  # default: 004:55 speaks of "původní dvě karty" (the original two cards)
    double_card_face="down",  # 004:55 "která je umístěna lícem dolů"
    split_by="rank",  # 004:51 "stejné nominální hodnoty, například dva jacky nebo dvě šestky" (the rules brief: rank)
    no_split_values=frozenset(),  # default: 004 forbids no pair (004:55 even two fives may split)
    max_split_hands=2,  # default: 004:51 describes two hands
    resplit_aces=False,  # 004:51 "S párem es dostane hráč za každé eso jednu kartu"
    split_aces_one_card=True,  # 004:51 "za každé eso jednu kartu a nemusí znovu táhnout"
    split_21_is_natural=False,  # 004:51 "výplata se rovná sázce (ne jedné a půl ku jedné)"
    surrender="none",  # default: 004 offers no surrender
    surrender_returns=(1, 2),  # default: unused
    even_money=False,  # default: 004 offers no even money
    insurance=True,  # 004:59 "jakýkoli hráčů může vsadit vedlejší sázku"
    insurance_stake="up_to_half",  # 004:59 "až do poloviny původní sázky"
    insurance_pays=(2, 1),  # 004:59 "výplata 2: 1"
    insurance_on_natural=True,  # default: the seed does not keep a blackjack from insurance
    push_carries_over=False,  # 004:63 "V případě stand-off ... se nevyplácejí ani nevybírají žádné žetony"
    dealer_completes_when_all_bust=False,  # default: 004 does not say
    back_betting=False,  # default
    dealer_plays_basic_strategy=False,  # 004:37 the player decides
    live_must_hit_below=11,  # default: live game only
    live_stand_from=17,  # default: live game only
    reshuffle_after_exposed=False,  # default
    min_bet=200,  # 004:19 "obecné limity jsou od 2 do 500 USD" - 2 USD in cents
    max_bet=50_000,  # 004:19 - 500 USD in cents
    boxes=7,  # default
    rounding="down",  # default
    cashout_margin=(0, 1),  # default: no cash-out in this game
)

# Not from a seed: the standard six-deck Las Vegas Strip shoe game (S17, double any two,
# double after split, resplit to four hands, late surrender, peek, 3:2), as listed among
# the common rule sets of e.g. the Wizard of Odds house-edge tables.
VEGAS_S17_DAS_LS = RuleSet(
    name="vegas-s17-das-ls",
    decks=6,
    burn_on_shuffle=1,
    penetration=(70, 110),
    hole_card="peek",
    natural_pays=(3, 2),
    double_on=None,
    double_after_split=True,
    max_split_hands=4,
    surrender="late",
    even_money=True,
    insurance=True,
    insurance_stake="up_to_half",
    dealer_completes_when_all_bust=False,
)

# Not from a seed: the 6:5 single-deck game that spread on the Las Vegas Strip in the
# 2000s (H17, double any two, no double after split, one split, 6:5 naturals, peek).
VEGAS_65_SINGLE_DECK = RuleSet(
    name="vegas-6to5-single-deck",
    decks=1,
    burn_on_shuffle=1,
    penetration=(20, 30),
    hole_card="peek",
    dealer_hits_soft_17=True,
    natural_pays=(6, 5),
    double_on=None,
    double_after_split=False,
    max_split_hands=2,
    insurance=True,
    insurance_stake="up_to_half",
    even_money=True,
)

PRESETS: MappingProxyType[str, RuleSet] = MappingProxyType(
    {
        rules.name: rules
        for rules in (
            IT_LIVE,
            IT_CLASSIC,
            IT_SABOT,
            EU_ONLINE,
            HOYLE,
            VEGAS_S17_DAS_LS,
            VEGAS_65_SINGLE_DECK,
        )
    }
)
SEED_PRESETS = ("it-live", "it-classic", "it-sabot", "eu-online", "hoyle")


def preset(name: str) -> RuleSet:
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"no rule set named {name!r} (known: {', '.join(PRESETS)})") from None
