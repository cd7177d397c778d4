"""AP style material for the news-writing task: rubric and rule-breaking statement templates.

All text is proseval's own. Each statement template is ``(wrong, correct, reason)`` with
``str.format`` slots filled from a news context (see ``nw.context``); the wrong form breaks
exactly one rule of its category and the correct form fixes it.
"""

from __future__ import annotations

CATEGORIES: tuple[str, ...] = (
    "Number Usage",
    "Punctuation",
    "Dates and Times",
    "Addresses and Locations",
    "Titles and Positions",
    "Media References",
    "Capitalization Rules",
    "Technical Terms",
    "Clarity and Brevity",
    "Overall Consistency",
)

# category -> (criteria, incorrect examples, correct examples)
RUBRIC: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "Number Usage": (
        "Spell out whole numbers below 10 and use figures for 10 and above. Always use figures "
        "for ages, percentages (with the % sign) and votes. Spell out a number that starts a "
        "sentence. Write large round amounts as $4.5 million, not $4,500,000.",
        ("The club has 6 members.", "15 people attended."),
        ("The club has six members.", "Fifteen people attended."),
    ),
    "Punctuation": (
        "No comma before the conjunction in a simple series. Periods and commas go inside "
        "quotation marks. Hyphenate compound modifiers that precede a noun. No commas around "
        "Jr. Put spaces around dashes. Singular proper names ending in s take only an apostrophe.",
        ("We bought apples, pears, and plums.", 'He called it "a start".'),
        ("We bought apples, pears and plums.", 'He called it "a start."'),
    ),
    "Dates and Times": (
        "With a specific date, abbreviate Jan., Feb., Aug., Sept., Oct., Nov. and Dec.; spell "
        "out a month that stands alone or with a year only. No st, nd, rd or th after dates. "
        "Write times as 3 p.m. or 10:30 a.m.; use noon and midnight. Do not abbreviate days.",
        ("The sale ends on August 5th.", "Doors open at 7:00 PM."),
        ("The sale ends on Aug. 5.", "Doors open at 7 p.m."),
    ),
    "Addresses and Locations": (
        "Abbreviate St., Ave. and Blvd. only with a numbered address; spell them out otherwise. "
        "Spell out First through Ninth as street names. Spell out state names in the body of a "
        "story and set them off with commas. Lowercase compass directions unless they name a "
        "region.",
        ("She lives at 12 Oak Street.", "He moved to Dayton, OH last year."),
        ("She lives at 12 Oak St.", "He moved to Dayton, Ohio, last year."),
    ),
    "Titles and Positions": (
        "Capitalize a formal title directly before a name and lowercase it after a name or "
        "alone. Abbreviate Gov., Sen. and Rep. before a full name. Lowercase and never "
        "abbreviate professor. Use Dr. only for medical doctors.",
        ("Governor Ann Lee spoke.", "Tom Park, the Mayor, agreed."),
        ("Gov. Ann Lee spoke.", "Tom Park, the mayor, agreed."),
    ),
    "Media References": (
        "Put titles of books, reports, films, songs and television programs in quotation "
        "marks, without italics. Do not quote or italicize the names of newspapers, magazines "
        "and journals. Spell brand and platform names as their owners do.",
        ("She wrote *Long Roads*.", 'He writes for the magazine "Harbor Life".'),
        ('She wrote "Long Roads."', "He writes for the magazine Harbor Life."),
    ),
    "Capitalization Rules": (
        "Capitalize proper nouns and formal names; lowercase common nouns used alone, seasons, "
        "generic holidays, government words such as federal and state, and titles used "
        "without a name.",
        ("Work starts in the Fall.", "The Federal Government will pay."),
        ("Work starts in the fall.", "The federal government will pay."),
    ),
    "Technical Terms": (
        "Use current AP spellings of technology words: email, website, internet, online, "
        "smartphone, cellphone, Wi-Fi and AI.",
        ("Send an e-mail.", "Visit our web site."),
        ("Send an email.", "Visit our website."),
    ),
    "Clarity and Brevity": (
        "Prefer short, direct wording. Cut redundant phrases such as in order to, due to the "
        "fact that, at this point in time and completely destroyed; prefer use to utilize and "
        "decided to made the decision to.",
        ("They met in order to vote.", "Due to the fact that it rained, the game ended."),
        ("They met to vote.", "Because it rained, the game ended."),
    ),
    "Overall Consistency": (
        "Follow AP word choices consistently: toward, afterward, adviser, OK, all right, among, "
        "judgment and theater (unless a proper name uses theatre).",
        ("They walked towards the hall.", "The plan is okay."),
        ("They walked toward the hall.", "The plan is OK."),
    ),
}

T = tuple[str, str, str]

STATEMENTS: dict[str, tuple[T, ...]] = {
    "Number Usage": (
        (
            "The {org} hired {small} new {staff} this year.",
            "The {org} hired {small_word} new {staff} this year.",
            "Whole numbers below 10 are spelled out.",
        ),
        (
            "{big} residents spoke at the public hearing on the {project}.",
            "{big_word_cap} residents spoke at the public hearing on the {project}.",
            "A number that starts a sentence is spelled out.",
        ),
        (
            "The {project} will cost ${amount_full}.",
            "The {project} will cost ${amount} million.",
            "Large round amounts use a figure with million, not a string of zeros.",
        ),
        (
            "{p1}, a {age_word}-year-old {job}, said the plan was overdue.",
            "{p1}, a {age}-year-old {job}, said the plan was overdue.",
            "Ages are always written as figures.",
        ),
        (
            "The {org} runs {big_word} offices across {state}.",
            "The {org} runs {big} offices across {state}.",
            "Numbers of 10 and above are written as figures.",
        ),
        (
            "Support for the {project} rose to {big} per cent in the latest survey.",
            "Support for the {project} rose to {big}% in the latest survey.",
            "Percentages use figures and the % sign.",
        ),
        (
            "Many of the {staff} were hired in the 1990's.",
            "Many of the {staff} were hired in the 1990s.",
            "Plural decades take no apostrophe.",
        ),
        (
            "The board approved the {project} by a vote of {small_word} to {small2_word}.",
            "The board approved the {project} by a vote of {small}-{small2}.",
            "Votes are written with figures and a hyphen.",
        ),
    ),
    "Punctuation": (
        (
            "The {project} plan covers roads, bridges, and parks.",
            "The {project} plan covers roads, bridges and parks.",
            "AP style uses no serial comma in a simple series.",
        ),
        (
            '{p1} called the decision "a turning point for {city}".',
            '{p1} called the decision "a turning point for {city}."',
            "Periods go inside quotation marks.",
        ),
        (
            "The {org} released a long term plan for the {project}.",
            "The {org} released a long-term plan for the {project}.",
            "A compound modifier before a noun is hyphenated.",
        ),
        (
            "{p2}, Jr., will lead the review of the {project}.",
            "{p2} Jr. will lead the review of the {project}.",
            "Jr. is not set off by commas.",
        ),
        (
            "The {project}—approved in {month_full}—will open next year.",
            "The {project} — approved in {month_full} — will open next year.",
            "AP style puts a space on both sides of a dash.",
        ),
        (
            "The {project} was part of {s_name}'s proposal.",
            "The {project} was part of {s_name}' proposal.",
            "A singular proper name ending in s takes only an apostrophe.",
        ),
        (
            "Officials said the {project} would open on time, however, funding is uncertain.",
            "Officials said the {project} would open on time; however, funding is uncertain.",
            "Two clauses joined by however need a semicolon, not a comma.",
        ),
        (
            "Turnout at the hearing was the highest in a decade!",
            "Turnout at the hearing was the highest in a decade.",
            "News copy avoids exclamation points.",
        ),
    ),
    "Dates and Times": (
        (
            "The {org} will vote on the {project} on {month_full} {day}.",
            "The {org} will vote on the {project} on {month_abbr} {day}.",
            "Months such as this one are abbreviated when used with a specific date.",
        ),
        (
            "The next hearing is set for {month_short} {day}{day_suffix}.",
            "The next hearing is set for {month_short} {day}.",
            "Dates take no st, nd, rd or th.",
        ),
        (
            "The meeting starts at {hour}:00 PM.",
            "The meeting starts at {hour} p.m.",
            "Times use lowercase a.m. or p.m. with periods and drop :00.",
        ),
        (
            "Crews worked on the {project} until 12 midnight.",
            "Crews worked on the {project} until midnight.",
            "Write midnight, not 12 midnight.",
        ),
        (
            "The {project} opened on Tues., {month_abbr} {day}.",
            "The {project} opened on Tuesday, {month_abbr} {day}.",
            "Days of the week are not abbreviated.",
        ),
        (
            "Construction began in {month_abbr} {year}.",
            "Construction began in {month_full} {year}.",
            "A month used with a year only is spelled out.",
        ),
        (
            "The ceremony is at 10 a.m. this morning.",
            "The ceremony is at 10 a.m. today.",
            "10 a.m. this morning is redundant.",
        ),
        (
            "The {org} expects the work to finish by {month_short} of {year}.",
            "The {org} expects the work to finish by {month_short} {year}.",
            "No of between a month and a year.",
        ),
    ),
    "Addresses and Locations": (
        (
            "The {org} has its office at {house} {street} Street.",
            "The {org} has its office at {house} {street} St.",
            "Street is abbreviated with a numbered address.",
        ),
        (
            "The {project} site is on {street} Ave.",
            "The {project} site is on {street} Avenue.",
            "Avenue is spelled out when there is no street number.",
        ),
        (
            "Officials in {city}, {st} praised the {project}.",
            "Officials in {city}, {state}, praised the {project}.",
            "State names are spelled out in the body of a story and set off with commas.",
        ),
        (
            "The new clinic is on {small}{small_suffix} Street.",
            "The new clinic is on {small_ordinal} Street.",
            "First through Ninth are spelled out as street names.",
        ),
        (
            "Heavy rain fell across Northern {state} on {weekday}.",
            "Heavy rain fell across northern {state} on {weekday}.",
            "Compass directions that describe part of a state are lowercase.",
        ),
        (
            "The convoy drove East toward {city}.",
            "The convoy drove east toward {city}.",
            "Compass points that show direction are lowercase.",
        ),
        (
            "The {org} moved to {house} {street} Boulevard.",
            "The {org} moved to {house} {street} Blvd.",
            "Boulevard is abbreviated with a numbered address.",
        ),
        (
            "The shop sits at the corner of Main Street and {street} Street.",
            "The shop sits at the corner of Main and {street} streets.",
            "Two named streets share a lowercase plural streets.",
        ),
    ),
    "Titles and Positions": (
        (
            "Governor {official} signed the {project} bill.",
            "Gov. {official} signed the {project} bill.",
            "Governor is abbreviated Gov. before a full name.",
        ),
        (
            "Senator {p1} voted against the {project}.",
            "Sen. {p1} voted against the {project}.",
            "Senator is abbreviated Sen. before a full name.",
        ),
        (
            "The meeting on the {project} was opened by mayor {p2}.",
            "The meeting on the {project} was opened by Mayor {p2}.",
            "A formal title directly before a name is capitalized.",
        ),
        (
            "{p2}, the Mayor of {city}, welcomed the decision.",
            "{p2}, the mayor of {city}, welcomed the decision.",
            "A title after a name is lowercase.",
        ),
        (
            "The study of the {project} was led by Professor {p1}.",
            "The study of the {project} was led by professor {p1}.",
            "Professor is lowercase and never abbreviated before a name.",
        ),
        (
            "Dr. {p1}, a historian, reviewed the {project}.",
            "{p1}, a historian, reviewed the {project}.",
            "Dr. is used only for medical doctors.",
        ),
        (
            "The {org}'s Chief Financial Officer, {p2}, presented the figures.",
            "The {org}'s chief financial officer, {p2}, presented the figures.",
            "A title set off by commas is lowercase.",
        ),
        (
            "Representative {p1} praised the {staff}.",
            "Rep. {p1} praised the {staff}.",
            "Representative is abbreviated Rep. before a full name.",
        ),
    ),
    "Media References": (
        (
            "The report, titled *{title}*, was released on {weekday}.",
            'The report, titled "{title}," was released on {weekday}.',
            "Titles of reports go in quotation marks, not italics.",
        ),
        (
            "The band played {song} at the opening of the {project}.",
            'The band played "{song}" at the opening of the {project}.',
            "Song titles go in quotation marks.",
        ),
        (
            '{p1} told the magazine "{magazine}" that the {project} was overdue.',
            "{p1} told the magazine {magazine} that the {project} was overdue.",
            "Magazine names are not put in quotation marks.",
        ),
        (
            "The documentary {title} airs on Channel {small}.",
            'The documentary "{title}" airs on Channel {small}.',
            "Titles of films and documentaries go in quotation marks.",
        ),
        (
            "The study appeared in the journal *{journal}*.",
            "The study appeared in the journal {journal}.",
            "Journal names are capitalized without italics or quotation marks.",
        ),
        (
            "A video of the meeting was shared on You Tube.",
            "A video of the meeting was shared on YouTube.",
            "Platform names are spelled as their owners spell them.",
        ),
        (
            "{p2} discussed the {project} on the TV program {show}.",
            '{p2} discussed the {project} on the TV program "{show}."',
            "Television program names go in quotation marks.",
        ),
        (
            "{p1} is writing a book called <i>{title}</i>.",
            '{p1} is writing a book called "{title}."',
            "Book titles go in quotation marks, without italics or markup.",
        ),
    ),
    "Capitalization Rules": (
        (
            "Work on the {project} will begin this Spring.",
            "Work on the {project} will begin this spring.",
            "Seasons are lowercase.",
        ),
        (
            "The Council approved the {project} after a long debate.",
            "The council approved the {project} after a long debate.",
            "Council is lowercase when it stands alone.",
        ),
        (
            "The Federal Government will pay part of the cost.",
            "The federal government will pay part of the cost.",
            "Federal and government are lowercase unless part of a formal name.",
        ),
        (
            "The {org} hired a new Police Chief.",
            "The {org} hired a new police chief.",
            "A title used without a name is lowercase.",
        ),
        (
            "Residents along the {river} river were told to leave.",
            "Residents along the {river} River were told to leave.",
            "River is capitalized as part of a proper name.",
        ),
        (
            "The {org} will close for the Holidays.",
            "The {org} will close for the holidays.",
            "Generic holidays are lowercase.",
        ),
        (
            "Students in the Fall Semester will pay lower fees.",
            "Students in the fall semester will pay lower fees.",
            "Seasons and semesters are lowercase.",
        ),
        (
            "The State of {state} will pay half of the cost.",
            "The state of {state} will pay half of the cost.",
            "State is lowercase in state of plus a name.",
        ),
    ),
    "Technical Terms": (
        (
            "Residents can send comments on the {project} by e-mail.",
            "Residents can send comments on the {project} by email.",
            "AP spells email without a hyphen.",
        ),
        (
            "The plan is posted on the {org} web site.",
            "The plan is posted on the {org} website.",
            "Website is one lowercase word.",
        ),
        (
            "The {org} will publish the data on the Internet.",
            "The {org} will publish the data on the internet.",
            "Internet is lowercase.",
        ),
        (
            "Riders can buy tickets with a smart phone app.",
            "Riders can buy tickets with a smartphone app.",
            "Smartphone is one word.",
        ),
        (
            "Free wifi will be available at the {project}.",
            "Free Wi-Fi will be available at the {project}.",
            "AP spells the term Wi-Fi.",
        ),
        (
            "Registration for the {project} is on-line.",
            "Registration for the {project} is online.",
            "Online is one word.",
        ),
        ("The new system uses A.I. to route calls.", "The new system uses AI to route calls.", "AI takes no periods."),
        (
            "Callers reached the {org} by cell phone.",
            "Callers reached the {org} by cellphone.",
            "Cellphone is one word.",
        ),
    ),
    "Clarity and Brevity": (
        (
            "The {org} raised fees in order to pay for the {project}.",
            "The {org} raised fees to pay for the {project}.",
            "In order to is wordy; to is enough.",
        ),
        (
            "At this point in time, the {project} is on schedule.",
            "The {project} is on schedule.",
            "At this point in time adds nothing.",
        ),
        (
            "The delay happened due to the fact that steel prices rose.",
            "The delay happened because steel prices rose.",
            "Due to the fact that is wordy; use because.",
        ),
        (
            "Crews will utilize {small_word} cranes on the {project}.",
            "Crews will use {small_word} cranes on the {project}.",
            "Use is plainer than utilize.",
        ),
        (
            "The letter was signed by a total of {big} {staff}.",
            "The letter was signed by {big} {staff}.",
            "A total of is redundant.",
        ),
        (
            "The storm completely destroyed {small_word} homes near the {project}.",
            "The storm destroyed {small_word} homes near the {project}.",
            "Destroyed needs no completely.",
        ),
        (
            "The {org} made the decision to delay the vote.",
            "The {org} decided to delay the vote.",
            "Made the decision to is wordy; use decided to.",
        ),
        (
            "The {project} will open in the near future.",
            "The {project} will open soon.",
            "In the near future is wordy; use soon.",
        ),
    ),
    "Overall Consistency": (
        (
            "The {org} is moving towards a final vote.",
            "The {org} is moving toward a final vote.",
            "AP uses toward, not towards.",
        ),
        (
            "Afterwards, {p1} met with reporters.",
            "Afterward, {p1} met with reporters.",
            "AP uses afterward, not afterwards.",
        ),
        (
            "{p2}, a policy advisor, drafted the {project} plan.",
            "{p2}, a policy adviser, drafted the {project} plan.",
            "AP uses adviser.",
        ),
        (
            "Officials said the design of the {project} was okay.",
            "Officials said the design of the {project} was OK.",
            "AP uses OK, not okay.",
        ),
        (
            "{p1} said everything was alright with the {project}.",
            "{p1} said everything was all right with the {project}.",
            "AP uses all right, not alright.",
        ),
        (
            "The plan caused debate amongst residents of {city}.",
            "The plan caused debate among residents of {city}.",
            "AP uses among, not amongst.",
        ),
        (
            "The judgement was announced on {weekday}.",
            "The judgment was announced on {weekday}.",
            "AP spells judgment without an e after the g.",
        ),
        (
            "The {org} will rebuild the old theatre downtown.",
            "The {org} will rebuild the old theater downtown.",
            "AP uses theater unless theatre is part of a proper name.",
        ),
    ),
}
