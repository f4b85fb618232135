<?php
// Course SUDOKU1, a teacher, five students (one with a leading '-', one with '@'),
// a manual grade item "Sudoku lab" (0..27), and a try at the usernames Moodle refuses.
define('CLI_SCRIPT', true);
require(getenv('MOODLE_DIR').'/config.php');
require_once($CFG->dirroot.'/course/lib.php');
require_once($CFG->dirroot.'/user/lib.php');
require_once($CFG->libdir.'/gradelib.php');
\core\session\manager::set_user(get_admin());
echo "moodle {$CFG->release} version {$CFG->version}; extendedusernamechars=".var_export($CFG->extendedusernamechars ?? null, true)."\n";
$course = create_course((object)['fullname'=>'Sudoku Course','shortname'=>'SUDOKU1','category'=>1]);
$manual = enrol_get_plugin('manual');
$instance = $DB->get_record('enrol', ['courseid'=>$course->id,'enrol'=>'manual'], '*', MUST_EXIST);
$role = fn($r) => $DB->get_field('role','id',['shortname'=>$r]);
$ids = ['course'=>$course->id, 'users'=>[]];
foreach (['teach01','alice01','-carol','@dan','erin01','bob01','=eq01','+plus01'] as $u) {
    $rec = (object)['username'=>$u,'password'=>'Pw#12345678','firstname'=>ucfirst(ltrim($u,'-@=+')),'lastname'=>'Test',
        'email'=>ltrim($u,'-@=+').'@example.invalid','auth'=>'manual','confirmed'=>1,'mnethostid'=>$CFG->mnet_localhost_id];
    try {
        $id = user_create_user($rec, true, false);
        $manual->enrol_user($instance, $id, $role($u==='teach01' ? 'editingteacher' : 'student'));
        $ids['users'][$u] = $id;
        echo "user ".json_encode($u)." id $id stored as ".json_encode($DB->get_field('user','username',['id'=>$id]))."\n";
    } catch (Throwable $e) { echo "user ".json_encode($u)." REFUSED: ".$e->getMessage()."\n"; }
}
$gi = new grade_item(['courseid'=>$course->id,'itemtype'=>'manual','itemname'=>'Sudoku lab',
    'gradetype'=>GRADE_TYPE_VALUE,'grademax'=>27,'grademin'=>0], false);
$gi->insert('manual');
$ids['item'] = $gi->id;
echo "course {$course->id}, grade item {$gi->id} 'Sudoku lab' 0..27\n";
file_put_contents(getenv('SCRATCH').'/ids.json', json_encode($ids));
