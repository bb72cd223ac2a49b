-- Sample query log of a banking application on the financial sample database (PostgreSQL).
-- One statement per entry, ';'-separated. Generated deterministically; read by:
--   ctxtool draft templates --dsn DSN --workload samples/workload/financial.sql
-- Writes and SELECT ... FOR UPDATE are in the log on purpose: drafting must ignore them.

SELECT SUM(amount) FROM trans WHERE account_id = 27 AND type = 'VYDAJ';
SELECT COUNT(DISTINCT a.account_id) FROM account a JOIN loan l ON l.account_id = a.account_id JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Hl.m. Praha';
SELECT COUNT(*) FROM client WHERE gender = 'M' AND birth_date < '1960-01-01';
SELECT MAX(balance) FROM trans WHERE account_id = 75;
SELECT COUNT(*) FROM trans WHERE type = 'PRIJEM' AND amount >= 500;
-- app: nightly report
SELECT l.loan_id, l.amount FROM loan l WHERE l.amount > 50000 ORDER BY l.amount DESC;
SELECT duration, AVG(payments) FROM loan GROUP BY duration ORDER BY duration;
SELECT operation, COUNT(*) FROM trans WHERE date >= '1998-01-01' AND date < '1999-01-01' GROUP BY operation;
SELECT COUNT(*) FROM trans t JOIN account a ON t.account_id = a.account_id WHERE a.frequency = 'POPLATEK TYDNE' AND t.amount > 10000;
SELECT COUNT(DISTINCT a.account_id) FROM account a JOIN loan l ON l.account_id = a.account_id JOIN district d ON a.district_id = d.district_id
  WHERE d."A2" = 'Mlada Boleslav';
SELECT t.trans_id, t.date, t.amount, t.balance FROM trans t WHERE t.account_id = 71 AND t.date BETWEEN '1995-01-01' AND '1995-12-31' ORDER BY t.date, t.trans_id;
SELECT COUNT(*) FROM district WHERE "A3" IN ('south Bohemia', 'east Bohemia');
SELECT COUNT(*) FROM account WHERE frequency = 'POPLATEK MESICNE' AND date >= '1995-01-01';
TRUNCATE tmp_report;
SELECT d."A3", AVG(l.amount) FROM loan l JOIN account a ON a.account_id = l.account_id JOIN district d ON d.district_id = a.district_id WHERE l.status = 'A' GROUP BY d."A3";
SELECT d."A2", COUNT(*) AS n FROM client c JOIN district d ON d.district_id = c.district_id
  GROUP BY d."A2" ORDER BY n DESC LIMIT 10;
SELECT c.client_id, c.gender, c.birth_date FROM client c JOIN disp dp ON dp.client_id = c.client_id WHERE dp.account_id = 58 AND dp.type = 'OWNER';
SELECT COUNT(*) FROM trans t JOIN account a ON t.account_id = a.account_id WHERE a.frequency = 'POPLATEK MESICNE' AND t.amount > 1000;
SELECT COUNT(DISTINCT a.account_id) FROM account a JOIN loan l ON l.account_id = a.account_id JOIN district d ON a.district_id = d.district_id
  WHERE d."A2" = 'Cesky Krumlov';
SELECT COUNT(*) FROM account WHERE frequency = 'POPLATEK TYDNE' AND date >= '1995-01-01';
SELECT "A2", "A11" FROM district ORDER BY "A11" DESC LIMIT 5;
SELECT COUNT(*) FROM account a JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Cheb';
SELECT k_symbol, SUM(amount) FROM trans WHERE k_symbol IS NOT NULL GROUP BY k_symbol ORDER BY 2 DESC;
UPDATE loan SET status = 'B' WHERE loan_id = 3;
SELECT status, COUNT(*) FROM loan GROUP BY status ORDER BY status;
SELECT l.status, COUNT(*) FROM loan l JOIN account a ON a.account_id = l.account_id WHERE a.frequency = 'POPLATEK TYDNE' GROUP BY l.status;
SELECT COUNT(DISTINCT a.account_id) FROM account a JOIN loan l ON l.account_id = a.account_id JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Prachatice';
SELECT t.trans_id, t.date, t.amount, t.balance FROM trans t
  WHERE t.account_id = 66 AND t.date BETWEEN '1998-01-01' AND '1998-12-31' ORDER BY t.date, t.trans_id;
SELECT d."A2", d."A3" FROM district d WHERE d.district_id = 20;
SELECT COUNT(DISTINCT a.account_id) FROM account a JOIN loan l ON l.account_id = a.account_id JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Kolin';
SELECT COUNT(*) FROM card WHERE type = 'junior';
UPDATE district SET "A11" = "A11" + 100 WHERE district_id = 2;
UPDATE account SET frequency = 'POPLATEK TYDNE' WHERE account_id = 17;
SELECT MAX(balance) FROM trans WHERE account_id = 85;
SELECT c.client_id, c.gender, c.birth_date FROM client c JOIN disp dp ON dp.client_id = c.client_id WHERE dp.account_id = 7 AND dp.type = 'OWNER';
SELECT d."A2", d."A13" - d."A12" AS change FROM district d WHERE d."A3" = 'west Bohemia' ORDER BY change DESC;
SELECT cd.type, COUNT(*) FROM card cd JOIN disp dp ON cd.disp_id = dp.disp_id JOIN client c ON dp.client_id = c.client_id
  WHERE c.gender = 'M'
  GROUP BY cd.type;
SELECT "A2" FROM district WHERE "A12" > 3 ORDER BY "A2";
SELECT "A2", "A11" FROM district ORDER BY "A11" DESC LIMIT 15;
SELECT dp.type, COUNT(*) FROM disp dp GROUP BY dp.type;
SELECT COUNT(*) FROM trans WHERE type = 'VYDAJ' AND amount >= 8000;
SELECT operation, COUNT(*) FROM trans WHERE date >= '1994-01-01' AND date < '1995-01-01' GROUP BY operation;
-- app: nightly report
SELECT d."A2", d."A3" FROM district d WHERE d.district_id = 24;
SELECT status, COUNT(*) FROM loan GROUP BY status ORDER BY status;
SELECT d."A3", SUM(l.amount) AS total FROM loan l JOIN account a ON l.account_id = a.account_id JOIN district d ON d.district_id = a.district_id GROUP BY d."A3" ORDER BY total DESC;
SELECT COUNT(*) FROM loan WHERE status = 'D';
SELECT COUNT(*) FROM client WHERE gender = 'F' AND birth_date < '1955-01-01';
SELECT client.gender, COUNT(*) FROM client GROUP BY client.gender;
SELECT COUNT(*) FROM loan WHERE amount BETWEEN 50000 AND 250000;
SELECT l.loan_id, l.amount, l.duration, l.status FROM loan l WHERE l.account_id = 14 ORDER BY l.date;
SELECT MAX(balance) FROM trans WHERE account_id = 88;
SELECT d."A3", SUM(l.amount) AS total FROM loan l JOIN account a ON l.account_id = a.account_id JOIN district d ON d.district_id = a.district_id
  GROUP BY d."A3" ORDER BY total DESC;
SELECT COUNT(*) FROM trans t JOIN account a ON t.account_id = a.account_id WHERE a.frequency = 'POPLATEK MESICNE' AND t.amount > 5000;
SELECT "A2", "A4" FROM district WHERE "A3" = 'north Moravia' ORDER BY "A4" DESC;
SELECT "A2", "A11" FROM district ORDER BY "A11" DESC LIMIT 10;
SELECT d."A2", d."A13" - d."A12" AS change FROM district d WHERE d."A3" = 'Prague' ORDER BY change DESC;
SELECT COUNT(*) FROM district WHERE "A3" IN ('south Bohemia', 'north Bohemia');
SELECT COUNT(DISTINCT a.account_id) FROM account a JOIN loan l ON l.account_id = a.account_id JOIN district d ON a.district_id = d.district_id
  WHERE d."A2" = 'Rakovnik';
SELECT COUNT(*) FROM account WHERE frequency = 'POPLATEK PO OBRATU' AND date >= '1995-01-01';
SELECT t.trans_id, t.date, t.amount, t.balance FROM trans t WHERE t.account_id = 30 AND t.date BETWEEN '1996-01-01' AND '1996-12-31' ORDER BY t.date, t.trans_id;
SELECT COUNT(*) FROM trans t JOIN account a ON t.account_id = a.account_id
  WHERE a.frequency = 'POPLATEK PO OBRATU' AND t.amount > 5000;
SELECT l.loan_id, l.amount FROM loan l WHERE l.amount > 50000 ORDER BY l.amount DESC;
SELECT MAX(balance) FROM trans WHERE account_id = 37;
SELECT d."A2", d."A13" - d."A12" AS change FROM district d WHERE d."A3" = 'east Bohemia' ORDER BY change DESC;
SELECT COUNT(*) FROM loan WHERE amount BETWEEN 50000 AND 250000;
SELECT a.account_id FROM account a WHERE a.district_id = 70 ORDER BY a.account_id LIMIT 20;
SELECT a.account_id, a.frequency, a.date FROM account a WHERE a.account_id = 63;
SELECT AVG(d."A11") FROM district d WHERE d."A3" = 'south Moravia';
SELECT d."A2", d."A3" FROM district d WHERE d.district_id = 2;
SELECT c.client_id, c.gender, c.birth_date FROM client c JOIN disp dp ON dp.client_id = c.client_id
  WHERE dp.account_id = 40 AND dp.type = 'OWNER';
SELECT AVG(d."A11") FROM district d WHERE d."A3" = 'north Bohemia';
SELECT l.loan_id, l.amount, l.duration, l.status FROM loan l WHERE l.account_id = 56 ORDER BY l.date;
SELECT l.loan_id, l.amount, l.duration, l.status FROM loan l WHERE l.account_id = 56 ORDER BY l.date;
SELECT d."A3", SUM(l.amount) AS total FROM loan l JOIN account a ON l.account_id = a.account_id JOIN district d ON d.district_id = a.district_id GROUP BY d."A3" ORDER BY total DESC;
SELECT COUNT(*) FROM account a JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Frydek - Mistek';
SELECT COUNT(*) FROM card WHERE issued >= '1996-01-01';
SELECT t.trans_id, t.date, t.amount, t.balance FROM trans t WHERE t.account_id = 36 AND t.date BETWEEN '1996-01-01' AND '1996-12-31' ORDER BY t.date, t.trans_id;
SELECT COUNT(DISTINCT a.account_id) FROM account a JOIN loan l ON l.account_id = a.account_id JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Kolin';
SELECT COUNT(*) FROM card WHERE issued >= '1996-01-01';
-- app: nightly report
SELECT a.account_id FROM account a WHERE a.district_id = 70 ORDER BY a.account_id LIMIT 20;
SELECT c.client_id, c.gender, c.birth_date FROM client c JOIN disp dp ON dp.client_id = c.client_id WHERE dp.account_id = 62 AND dp.type = 'OWNER';
SELECT COUNT(*) FROM loan WHERE status = 'C';
SELECT MAX(balance) FROM trans WHERE account_id = 62;
SELECT d."A3", AVG(l.amount) FROM loan l JOIN account a ON a.account_id = l.account_id JOIN district d ON d.district_id = a.district_id WHERE l.status = 'A' GROUP BY d."A3";
SELECT a.account_id FROM account a WHERE a.district_id = 73 ORDER BY a.account_id LIMIT 10;
SELECT COUNT(*) FROM card WHERE issued >= '1997-01-01';
SELECT COUNT(*) FROM loan WHERE status = 'C';
SELECT COUNT(*) FROM loan WHERE status = 'D';
SELECT COUNT(*) FROM account a JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Vsetin';
SELECT AVG(amount) FROM loan WHERE duration = 48;
SELECT SUM(amount) FROM trans WHERE account_id = 25 AND type = 'VYDAJ';
SELECT l.status, COUNT(*) FROM loan l JOIN account a ON a.account_id = l.account_id WHERE a.frequency = 'POPLATEK TYDNE' GROUP BY l.status;
SELECT "A2" FROM district WHERE "A12" > 2 ORDER BY "A2";
SELECT duration, AVG(payments) FROM loan GROUP BY duration ORDER BY duration;
SELECT EXTRACT(YEAR FROM date) AS yr, COUNT(*) FROM loan GROUP BY yr ORDER BY yr;
SELECT COUNT(*) FROM account a JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Beroun';
SELECT c.client_id, c.birth_date FROM client c JOIN district d ON c.district_id = d.district_id
  WHERE d."A3" = 'north Moravia' ORDER BY c.birth_date LIMIT 20;
SELECT COUNT(*) FROM loan WHERE status = 'A';
SELECT l.status, COUNT(*) FROM loan l JOIN account a ON a.account_id = l.account_id WHERE a.frequency = 'POPLATEK MESICNE' GROUP BY l.status;
SELECT AVG(amount) FROM loan WHERE duration = 24;
SELECT "A2", "A11" FROM district ORDER BY "A11" DESC LIMIT 5;
SELECT l.loan_id, l.amount, l.duration, l.status FROM loan l WHERE l.account_id = 12 ORDER BY l.date;
SELECT d."A2", COUNT(*) AS n FROM client c JOIN district d ON d.district_id = c.district_id
  GROUP BY d."A2" ORDER BY n DESC LIMIT 5;
SELECT operation, COUNT(*) FROM trans WHERE date >= '1998-01-01' AND date < '1999-01-01' GROUP BY operation;
SELECT COUNT(*) FROM account a JOIN disp dp ON dp.account_id = a.account_id JOIN card cd ON cd.disp_id = dp.disp_id WHERE cd.type = 'classic' AND a.frequency = 'POPLATEK MESICNE';
SELECT COUNT(*) FROM account WHERE frequency = 'POPLATEK TYDNE' AND date >= '1994-01-01';
DELETE FROM trans WHERE trans_id = 990001;
SELECT "A2", "A15", "A16" FROM district WHERE "A2" LIKE 'Hradec%';
INSERT INTO loan (loan_id, account_id, date, amount, duration, payments, status) SELECT 990003, 5, '1998-06-01', 60000, 24, 2500.00, 'C';
SELECT d."A3", AVG(l.amount) FROM loan l JOIN account a ON a.account_id = l.account_id JOIN district d ON d.district_id = a.district_id WHERE l.status = 'C' GROUP BY d."A3";
SELECT MIN(date), MAX(date) FROM trans WHERE account_id = 21;
SELECT a.account_id, a.frequency, a.date FROM account a WHERE a.account_id = 59;
SELECT t.trans_id, t.date, t.amount, t.balance FROM trans t WHERE t.account_id = 88 AND t.date BETWEEN '1998-01-01' AND '1998-12-31' ORDER BY t.date, t.trans_id;
SELECT COUNT(*) FROM client WHERE gender = 'F' AND birth_date < '1957-01-01';
SELECT l.status, COUNT(*) FROM loan l JOIN account a ON a.account_id = l.account_id
  WHERE a.frequency = 'POPLATEK TYDNE'
  GROUP BY l.status;
SELECT d."A3", SUM(l.amount) AS total FROM loan l JOIN account a ON l.account_id = a.account_id JOIN district d ON d.district_id = a.district_id GROUP BY d."A3" ORDER BY total DESC;
-- app: nightly report
SELECT MIN(date), MAX(date) FROM trans WHERE account_id = 37;
SELECT "A2", "A15", "A16" FROM district WHERE "A2" LIKE 'Hradec%';
SELECT t.account_id, SUM(t.amount) AS total FROM trans t WHERE t.type = 'PRIJEM' GROUP BY t.account_id ORDER BY total DESC LIMIT 5;
SELECT l.loan_id, l.amount, l.duration, l.status FROM loan l WHERE l.account_id = 45 ORDER BY l.date;
SELECT t.account_id, SUM(t.amount) AS total FROM trans t
  WHERE t.type = 'PRIJEM'
  GROUP BY t.account_id ORDER BY total DESC LIMIT 5;
SELECT dp.type, COUNT(*) FROM disp dp GROUP BY dp.type;
SELECT c.client_id, c.gender, c.birth_date FROM client c JOIN disp dp ON dp.client_id = c.client_id WHERE dp.account_id = 31 AND dp.type = 'OWNER';
SELECT l.loan_id, l.amount, l.duration, l.status FROM loan l WHERE l.account_id = 55 ORDER BY l.date;
SELECT balance FROM trans WHERE account_id = 8 ORDER BY date DESC LIMIT 1 FOR UPDATE;
SELECT a.account_id, a.frequency, a.date FROM account a WHERE a.account_id = 67;
SELECT l.loan_id, l.amount FROM loan l WHERE l.amount > 150000 ORDER BY l.amount DESC;
SELECT operation, COUNT(*) FROM trans WHERE date >= '1997-01-01' AND date < '1998-01-01' GROUP BY operation;
SELECT client.gender, COUNT(*) FROM client GROUP BY client.gender;
SELECT k_symbol, SUM(amount) FROM trans WHERE k_symbol IS NOT NULL GROUP BY k_symbol ORDER BY 2 DESC;
SELECT EXTRACT(YEAR FROM date) AS yr, COUNT(*) FROM loan GROUP BY yr ORDER BY yr;
SELECT COUNT(*) FROM account a JOIN disp dp ON dp.account_id = a.account_id JOIN card cd ON cd.disp_id = dp.disp_id WHERE cd.type = 'gold' AND a.frequency = 'POPLATEK MESICNE';
SELECT a.account_id FROM account a WHERE a.district_id = 41 ORDER BY a.account_id LIMIT 20;
SELECT AVG(amount) FROM loan WHERE duration = 12;
SELECT SUM(amount) FROM trans WHERE account_id = 41 AND type = 'VYDAJ';
SELECT COUNT(*) FROM account a JOIN disp dp ON dp.account_id = a.account_id JOIN card cd ON cd.disp_id = dp.disp_id
  WHERE cd.type = 'classic' AND a.frequency = 'POPLATEK MESICNE';
SELECT status, COUNT(*) FROM loan GROUP BY status ORDER BY status;
SELECT operation, COUNT(*) FROM trans WHERE date >= '1998-01-01' AND date < '1999-01-01' GROUP BY operation;
SELECT t.trans_id, t.date, t.amount, t.balance FROM trans t
  WHERE t.account_id = 22 AND t.date BETWEEN '1997-01-01' AND '1997-12-31' ORDER BY t.date, t.trans_id;
SELECT d."A2", d."A3" FROM district d WHERE d.district_id = 74;
SELECT d."A2", COUNT(*) AS n FROM client c JOIN district d ON d.district_id = c.district_id GROUP BY d."A2" ORDER BY n DESC LIMIT 3;
SELECT SUM(amount) FROM trans WHERE account_id = 45 AND type = 'VYDAJ';
SELECT d."A3", SUM(l.amount) AS total FROM loan l JOIN account a ON l.account_id = a.account_id JOIN district d ON d.district_id = a.district_id GROUP BY d."A3" ORDER BY total DESC;
SELECT cd.type, COUNT(*) FROM card cd JOIN disp dp ON cd.disp_id = dp.disp_id JOIN client c ON dp.client_id = c.client_id WHERE c.gender = 'F' GROUP BY cd.type;
SELECT "A2", "A4" FROM district WHERE "A3" = 'south Moravia' ORDER BY "A4" DESC;
SELECT cd.type, COUNT(*) FROM card cd JOIN disp dp ON cd.disp_id = dp.disp_id JOIN client c ON dp.client_id = c.client_id WHERE c.gender = 'F' GROUP BY cd.type;
SELECT COUNT(*) FROM loan WHERE status = 'D';
SELECT cd.type, COUNT(*) FROM card cd JOIN disp dp ON cd.disp_id = dp.disp_id JOIN client c ON dp.client_id = c.client_id
  WHERE c.gender = 'F'
  GROUP BY cd.type;
DELETE FROM card WHERE card_id = 4;
SELECT SUM(amount) FROM trans WHERE account_id = 78 AND type = 'VYDAJ';
SELECT l.loan_id, l.amount, l.duration, l.status FROM loan l WHERE l.account_id = 74 ORDER BY l.date;
SELECT EXTRACT(YEAR FROM date) AS yr, COUNT(*) FROM loan GROUP BY yr ORDER BY yr;
SELECT "A2", "A15", "A16" FROM district WHERE "A2" LIKE 'Brno%';
-- app: nightly report
SELECT "A2" FROM district WHERE "A12" > 5 ORDER BY "A2";
SELECT AVG(d."A11") FROM district d WHERE d."A3" = 'north Bohemia';
SELECT COUNT(*) FROM account a JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Kolin';
SELECT l.loan_id, l.amount FROM loan l WHERE l.amount > 100000 ORDER BY l.amount DESC;
SELECT account_id FROM account WHERE account_id = 44 FOR UPDATE;
SELECT AVG(d."A11") FROM district d WHERE d."A3" = 'north Moravia';
SELECT c.client_id, c.birth_date FROM client c JOIN district d ON c.district_id = d.district_id
  WHERE d."A3" = 'south Moravia' ORDER BY c.birth_date LIMIT 20;
SELECT COUNT(*) FROM district WHERE "A3" IN ('north Bohemia', 'north Moravia');
SELECT COUNT(*) FROM account WHERE frequency = 'POPLATEK PO OBRATU' AND date >= '1993-01-01';
SELECT d."A3", AVG(l.amount) FROM loan l JOIN account a ON a.account_id = l.account_id JOIN district d ON d.district_id = a.district_id
  WHERE l.status = 'A'
  GROUP BY d."A3";
SELECT d."A2", d."A3" FROM district d WHERE d.district_id = 12;
SELECT t.trans_id, t.date, t.amount, t.balance FROM trans t WHERE t.account_id = 89 AND t.date BETWEEN '1995-01-01' AND '1995-12-31' ORDER BY t.date, t.trans_id;
INSERT INTO trans (trans_id, account_id, date, type, operation, amount, balance, k_symbol) VALUES (990001, 12, '1998-12-31', 'PRIJEM', 'VKLAD', 1200.00, 25000.00, NULL);
SELECT "A2", "A11" FROM district ORDER BY "A11" DESC LIMIT 15;
SELECT "A2", "A11" FROM district ORDER BY "A11" DESC LIMIT 15;
SELECT status, COUNT(*) FROM loan GROUP BY status ORDER BY status;
SELECT COUNT(*) FROM card WHERE type = 'junior';
SELECT COUNT(*) FROM trans WHERE type = 'VYDAJ' AND amount >= 500;
SELECT a.account_id, a.frequency, a.date FROM account a WHERE a.account_id = 27;
SELECT COUNT(*) FROM card WHERE type = 'classic';
SELECT "A2", "A4" FROM district WHERE "A3" = 'north Moravia' ORDER BY "A4" DESC;
SELECT COUNT(*) FROM card WHERE issued >= '1993-01-01';
SELECT COUNT(*) FROM card WHERE type = 'classic';
SELECT k_symbol, SUM(amount) FROM trans WHERE k_symbol IS NOT NULL GROUP BY k_symbol ORDER BY 2 DESC;
CREATE TEMPORARY TABLE tmp_report AS SELECT account_id, SUM(amount) AS total FROM trans GROUP BY account_id;
SELECT a.account_id FROM account a WHERE a.district_id = 1 ORDER BY a.account_id LIMIT 10;
SELECT COUNT(*) FROM loan WHERE amount BETWEEN 80000 AND 180000;
SELECT c.client_id, c.gender, c.birth_date FROM client c JOIN disp dp ON dp.client_id = c.client_id
  WHERE dp.account_id = 16 AND dp.type = 'OWNER';
SELECT c.client_id, c.birth_date FROM client c JOIN district d ON c.district_id = d.district_id WHERE d."A3" = 'south Moravia' ORDER BY c.birth_date LIMIT 5;
SELECT COUNT(*) FROM client WHERE gender = 'F' AND birth_date < '1956-01-01';
SELECT AVG(d."A11") FROM district d WHERE d."A3" = 'south Bohemia';
SELECT COUNT(*) FROM trans WHERE type = 'VYDAJ' AND amount >= 2000;
SELECT COUNT(DISTINCT a.account_id) FROM account a JOIN loan l ON l.account_id = a.account_id JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Kolin';
SELECT a.account_id, a.frequency, a.date FROM account a WHERE a.account_id = 44;
SELECT a.account_id, a.frequency, a.date FROM account a WHERE a.account_id = 19;
SELECT dp.type, COUNT(*) FROM disp dp GROUP BY dp.type;
SELECT MIN(date), MAX(date) FROM trans WHERE account_id = 35;
-- app: nightly report
SELECT c.client_id, c.birth_date FROM client c JOIN district d ON c.district_id = d.district_id WHERE d."A3" = 'east Bohemia' ORDER BY c.birth_date LIMIT 5;
SELECT COUNT(*) FROM card WHERE type = 'junior';
SELECT SUM(amount) FROM trans WHERE account_id = 72 AND type = 'VYDAJ';
SELECT t.account_id, SUM(t.amount) AS total FROM trans t WHERE t.type = 'PRIJEM' GROUP BY t.account_id ORDER BY total DESC LIMIT 5;
INSERT INTO client (client_id, gender, birth_date, district_id) VALUES (990002, 'F', '1971-03-02', 1);
SELECT COUNT(*) FROM trans WHERE type = 'VYDAJ' AND amount >= 500;
SELECT l.loan_id, l.amount FROM loan l WHERE l.amount > 100000 ORDER BY l.amount DESC;
SELECT c.client_id, c.birth_date FROM client c JOIN district d ON c.district_id = d.district_id WHERE d."A3" = 'west Bohemia' ORDER BY c.birth_date LIMIT 20;
SELECT l.loan_id, l.amount, l.duration, l.status FROM loan l WHERE l.account_id = 32 ORDER BY l.date;
SELECT l.loan_id, l.amount, l.duration, l.status FROM loan l WHERE l.account_id = 16 ORDER BY l.date;
SELECT "A2", "A4" FROM district WHERE "A3" = 'south Bohemia' ORDER BY "A4" DESC;
SELECT client.gender, COUNT(*) FROM client GROUP BY client.gender;
SELECT AVG(d."A11") FROM district d WHERE d."A3" = 'south Moravia';
SELECT COUNT(*) FROM district WHERE "A3" IN ('Prague', 'central Bohemia');
SELECT d."A2", COUNT(*) AS n FROM client c JOIN district d ON d.district_id = c.district_id
  GROUP BY d."A2" ORDER BY n DESC LIMIT 3;
SELECT t.trans_id, t.date, t.amount, t.balance FROM trans t WHERE t.account_id = 43 AND t.date BETWEEN '1995-01-01' AND '1995-12-31' ORDER BY t.date, t.trans_id;
SELECT t.account_id, SUM(t.amount) AS total FROM trans t WHERE t.type = 'PRIJEM' GROUP BY t.account_id ORDER BY total DESC LIMIT 5;
SELECT MIN(date), MAX(date) FROM trans WHERE account_id = 13;
SELECT COUNT(*) FROM loan WHERE amount BETWEEN 50000 AND 250000;
SELECT "A2", "A15", "A16" FROM district WHERE "A2" LIKE 'Brno%';
SELECT "A2", "A4" FROM district WHERE "A3" = 'south Moravia' ORDER BY "A4" DESC;
SELECT duration, AVG(payments) FROM loan GROUP BY duration ORDER BY duration;
SELECT d."A2", d."A3" FROM district d WHERE d.district_id = 22;
SELECT "A2" FROM district WHERE "A12" > 2 ORDER BY "A2";
SELECT a.account_id, a.frequency, a.date FROM account a WHERE a.account_id = 20;
SELECT AVG(amount) FROM loan WHERE duration = 36;
SELECT EXTRACT(YEAR FROM date) AS yr, COUNT(*) FROM loan GROUP BY yr ORDER BY yr;
SELECT COUNT(*) FROM account a JOIN district d ON a.district_id = d.district_id WHERE d."A2" = 'Jihlava';
SELECT status, COUNT(*) FROM loan GROUP BY status ORDER BY status;
