BEGIN TRANSACTION;
CREATE TABLE fact (
	id INTEGER NOT NULL,
	page TEXT NOT NULL,
	section_idx INTEGER NOT NULL,
	section_title TEXT NOT NULL,
	paragraph_idx INTEGER NOT NULL,
	text TEXT NOT NULL,
	pageviews INTEGER NOT NULL,
	PRIMARY KEY (id)
);
INSERT INTO "fact" VALUES(100,'Namibia',0,'Body',0,'Namibia is a country in southern Africa on the Atlantic coast.',5000);
INSERT INTO "fact" VALUES(103,'Namibia',1,'History',0,'Namibia was a German colony until the First World War.',5000);
INSERT INTO "fact" VALUES(106,'Namibia',1,'History',1,'South Africa ruled the territory after 1915.',5000);
INSERT INTO "fact" VALUES(109,'Namibia',1,'History',2,'The capital Windhoek was founded as a fort.',5000);
INSERT INTO "fact" VALUES(112,'Namibia',1,'History',3,'Namibia became independent in 1990.',5000);
INSERT INTO "fact" VALUES(115,'Namibia',2,'Economy',0,'Diamond mining is the largest industry.',5000);
INSERT INTO "fact" VALUES(118,'Namibia',2,'Economy',1,'Fishing in the Atlantic Ocean brings income.',5000);
INSERT INTO "fact" VALUES(121,'Namibia',2,'Economy',2,'Tourists visit the dunes of the Namib Desert.',5000);
INSERT INTO "fact" VALUES(124,'Namibia',3,'Geography',0,'The Kalahari Desert covers the east.',5000);
INSERT INTO "fact" VALUES(127,'Namibia',3,'Geography',1,'Namibia borders Angola in the north.',5000);
INSERT INTO "fact" VALUES(130,'Namibia',3,'Geography',2,'The Namib Desert is one of the oldest deserts.',5000);
CREATE TABLE mention (
	id INTEGER NOT NULL,
	is_location BOOLEAN NOT NULL,
	pageviews INTEGER NOT NULL,
	page TEXT NOT NULL,
	title TEXT NOT NULL,
	fact_id INTEGER NOT NULL,
	PRIMARY KEY (id),
	FOREIGN KEY(fact_id) REFERENCES fact (id)
);
INSERT INTO "mention" VALUES(1,1,900000,'Namibia','Germany',103);
INSERT INTO "mention" VALUES(2,1,800000,'Namibia','South Africa',106);
INSERT INTO "mention" VALUES(3,1,90000,'Namibia','Windhoek',109);
INSERT INTO "mention" VALUES(4,1,400000,'Namibia','Diamond',115);
INSERT INTO "mention" VALUES(5,1,700000,'Namibia','Atlantic Ocean',118);
INSERT INTO "mention" VALUES(6,1,70000,'Namibia','Namib Desert',121);
INSERT INTO "mention" VALUES(7,1,80000,'Namibia','Kalahari Desert',124);
INSERT INTO "mention" VALUES(8,1,300000,'Namibia','Angola',127);
INSERT INTO "mention" VALUES(9,1,70000,'Namibia','Namib Desert',130);
CREATE TABLE wiki (
	id INTEGER NOT NULL,
	title TEXT NOT NULL,
	text TEXT NOT NULL,
	is_simple BOOLEAN NOT NULL,
	PRIMARY KEY (id)
);
INSERT INTO "wiki" VALUES(1,'Namibia','Namibia is a country in southern Africa.',0);
INSERT INTO "wiki" VALUES(2,'Windhoek','Windhoek is the capital of Namibia.',0);
CREATE INDEX ix_fact_page ON fact (page);
CREATE INDEX ix_fact_section_title ON fact (section_title);
CREATE INDEX ix_wiki_title ON wiki (title);
COMMIT;
