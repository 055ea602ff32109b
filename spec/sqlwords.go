package spec

import "strings"

// sqlReserved are the words PostgreSQL or MySQL reserve (PostgreSQL's
// reserved keywords, those that may be function or type names included;
// MySQL 8's reserved words), which covers the keywords SQLite cannot take
// as a bare name. guard writes the table's name bare in every statement (a
// quoted name would be another table on PostgreSQL than the unquoted one
// the runtime's queries name), so a reserved word there breaks the SQL.
var sqlReserved = map[string]bool{}

func init() {
	for w := range strings.FieldsSeq(`
accessible add all alter analyse analyze and any array as asc asensitive
asymmetric authorization before between bigint binary blob both by call
cascade case cast change char character check collate collation column
concurrently condition constraint continue convert create cross cube
cume_dist current_catalog current_date current_role current_schema
current_time current_timestamp current_user cursor database databases
day_hour day_microsecond day_minute day_second dec decimal declare default
deferrable delayed delete dense_rank desc describe deterministic distinct
distinctrow div do double drop dual each else elseif empty enclosed end
escaped except exists exit explain false fetch first_value float float4
float8 for force foreign freeze from full fulltext function generated get
grant group grouping groups having high_priority hour_microsecond
hour_minute hour_second if ignore ilike in index infile initially inner
inout insensitive insert int int1 int2 int3 int4 int8 integer intersect
interval into io_after_gtids io_before_gtids is isnull iterate join
json_table key keys kill lag last_value lateral lead leading leave left
like limit linear lines load localtime localtimestamp lock long longblob
longtext loop low_priority master_bind master_ssl_verify_server_cert match
maxvalue mediumblob mediumint mediumtext middleint minute_microsecond
minute_second mod modifies natural no_write_to_binlog not notnull
nth_value ntile null numeric of offset on only optimize optimizer_costs
option optionally or order out outer outfile over overlaps partition
percent_rank placing precision primary procedure purge range rank read
read_write reads real recursive references regexp release rename repeat
replace require resignal restrict return returning revoke right rlike row
row_number rows schema schemas second_microsecond select sensitive
separator session_user set show signal similar smallint some spatial
specific sql sql_big_result sql_calc_found_rows sql_small_result
sqlexception sqlstate sqlwarning ssl starting stored straight_join
symmetric system system_user table tablesample terminated then tinyblob
tinyint tinytext to trailing trigger true undo union unique unlock
unsigned update usage use user using utc_date utc_time utc_timestamp
values varbinary varchar varcharacter variadic varying verbose virtual
when where while window with write xor year_month zerofill`) {
		sqlReserved[w] = true
	}
}
